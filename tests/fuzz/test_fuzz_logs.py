"""Fuzzed logs never crash drawlog, every line is accounted for, and ``validate`` and ``stats`` agree.

Bounded for CI; ``DRAWLOG_FUZZ_EXAMPLES=20000 python -m pytest tests/fuzz`` runs each target longer
(see tests/fuzz/README.md).
"""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from .agree import check_chunked, check_cli, check_files, check_log
from .inputs import damaged_logs, fuzz_settings, raw_logs, read_sizes


@fuzz_settings(ci_examples=80)
@given(data=damaged_logs(), suffix=st.sampled_from([".jsonl", ".jsonl", ".jsonl", ".jsonl.gz", ".jsonl.zst"]))
def test_damaged_logs_get_the_same_violations_from_validate_and_stats(data: bytes, suffix: str) -> None:
    check_log(data, suffix)


@fuzz_settings(ci_examples=200)
@given(data=raw_logs)
def test_raw_bytes_get_the_same_violations_from_validate_and_stats(data: bytes) -> None:
    check_log(data)


@fuzz_settings(ci_examples=15)
@given(data=damaged_logs())
def test_damaged_logs_get_the_same_violations_from_the_validate_and_stats_commands(data: bytes) -> None:
    check_cli(data)


@fuzz_settings(ci_examples=5)
@given(logs=st.lists(damaged_logs() | raw_logs, min_size=2, max_size=3))
def test_damaged_files_get_the_same_violations_from_validate_and_stats_in_one_process_and_in_two(
        logs: list[bytes]) -> None:
    check_files(logs)


@fuzz_settings(ci_examples=100)
@given(data=damaged_logs() | raw_logs, sizes=read_sizes)
def test_logs_read_from_a_pipe_in_any_pieces_get_what_a_file_gets(data: bytes, sizes: list[int]) -> None:
    assume(not data.startswith((b"\x1f\x8b", b"\x28\xb5\x2f\xfd")))  # stdin unpacks these
    check_chunked(data, sizes)


@fuzz_settings(ci_examples=40)
@given(data=damaged_logs() | raw_logs, sizes=read_sizes, suffix=st.sampled_from([".jsonl.gz", ".jsonl.zst"]))
def test_compressed_logs_read_from_a_pipe_in_any_pieces_get_what_a_file_gets(data: bytes, sizes: list[int],
                                                                             suffix: str) -> None:
    check_chunked(data, sizes, suffix)


@fuzz_settings(ci_examples=20)
@given(data=damaged_logs(), suffix=st.sampled_from([".jsonl.gz", ".jsonl.zst"]), cut=st.integers(0, 400),
       flips=st.lists(st.tuples(st.integers(0, 10_000), st.integers(1, 255)), max_size=3))
def test_truncated_or_corrupt_compressed_logs_get_the_same_violations_from_validate_and_stats(
        data: bytes, suffix: str, cut: int, flips: list[tuple[int, int]]) -> None:
    def damage(stored: bytes) -> bytes:
        damaged = bytearray(stored[:max(len(stored) - cut, 0)])
        for position, mask in flips:
            if damaged:
                damaged[position % len(damaged)] ^= mask
        return bytes(damaged)

    check_log(data, suffix, damage=damage)
