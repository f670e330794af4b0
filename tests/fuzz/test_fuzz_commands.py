"""Fuzzed logs, tables and settings through ``replay``, ``report``, ``filter``, configuration and baselines.

No traceback ever; exit statuses as documented; where a command overlaps ``validate`` (the violations
``replay`` shows on a line, the matches ``filter`` counts, a configuration's or a baseline's effect) it
agrees with ``validate``. Bounded for CI; ``DRAWLOG_FUZZ_EXAMPLES`` runs longer (tests/fuzz/README.md).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from .agree_commands import check_filter, check_replay
from .agree_settings import check_baseline, check_config, check_report
from .hostile import baseline_changes, config_files, filter_options, table_damage
from .inputs import damaged_logs, fuzz_settings, raw_logs


@fuzz_settings(ci_examples=25)
@given(data=damaged_logs() | raw_logs, line=st.integers(1, 400) | st.sampled_from([1, 2, 3, 10**6]),
       which=st.integers(0, 10), output_format=st.sampled_from(["text", "json"]))
def test_replay_shows_on_each_line_the_violations_validate_reports_there(data: bytes, line: int, which: int,
                                                                         output_format: str) -> None:
    check_replay(data, line, which, output_format)


@fuzz_settings(ci_examples=30)
@given(data=damaged_logs() | raw_logs, options=filter_options(),
       split=st.sampled_from([None, None, None, "match", "tournament"]))
def test_filter_accounts_for_every_line_and_counts_matches_as_validate_does(data: bytes, options: list[str],
                                                                          split: str | None) -> None:
    check_filter(data, options, split)


@fuzz_settings(ci_examples=10)
@given(data=damaged_logs(), changes=table_damage, logs=st.booleans())
def test_report_of_damaged_tables_is_an_inert_page_or_one_line(data: bytes, changes: list[tuple[object, ...]],
                                                                logs: bool) -> None:
    check_report(data, changes, logs)


@fuzz_settings(ci_examples=30)
@given(config=config_files(), data=damaged_logs())
def test_a_configuration_is_one_line_naming_it_or_the_run_its_options_give(config: tuple[str, bytes],
                                                                          data: bytes) -> None:
    check_config(config[1], config[0], data)


@fuzz_settings(ci_examples=30)
@given(data=damaged_logs(), changes=baseline_changes())
def test_a_baseline_is_one_line_naming_it_or_absorbs_what_its_entries_say(
        data: bytes, changes: tuple[list[tuple[object, ...]], object, list[tuple[int, bytes]]]) -> None:
    check_baseline(data, *changes)
