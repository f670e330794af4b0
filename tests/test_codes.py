"""Every violation code is detected on the exact line, and every clean twin passes.

The fixtures live in ``tests/fixtures/codes/`` and are made by
``tests/fixtures/make_code_fixtures.py``; ``expected.json`` maps each file to the
``[line, code]`` pairs that RULES.md and LOG-FORMAT.md demand, in the order reported.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import re
from pathlib import Path

import pytest

from drawlog.check.rules import RULES
from drawlog.check.validator import Validator

HERE = Path(__file__).resolve().parent
CODES_DIR = HERE / "fixtures" / "codes"
EXPECTED: dict[str, list] = json.loads((CODES_DIR / "expected.json").read_text(encoding="utf-8"))
ALL_CODES = [rule.code for rule in RULES]
#: Codes still reported (a retired code, like W403, is kept in the catalog but never reported).
LIVE_CODES = [rule.code for rule in RULES if not rule.retired]
RETIRED_CODES = [rule.code for rule in RULES if rule.retired]

#: Fixtures on which drawlog disagrees with the contract (the test asserts the contract).


def validate(*names: str):
    return list(Validator().validate_paths([str(CODES_DIR / name) for name in names]))


def pairs(violations) -> list[list]:
    return [[v.line, v.code] for v in violations]


# -- the fixtures ------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_reports_exactly_the_expected_lines_and_codes(name):
    assert pairs(validate(name)) == EXPECTED[name]


CLEAN = sorted(name for name in EXPECTED if ".clean." in name)


@pytest.mark.parametrize("name", CLEAN)
def test_clean_twin_has_no_violations(name):
    assert EXPECTED[name] == []
    found = validate(name)
    assert found == [], "\n".join(f"{v.line} {v.code} {v.message}" for v in found)


def test_every_fixture_file_is_listed_and_every_listed_file_exists():
    on_disk = {path.name for path in CODES_DIR.iterdir() if path.name != "expected.json"}
    assert on_disk == set(EXPECTED)


def test_expectations_use_catalog_codes_and_name_their_own_code():
    for name, expected in EXPECTED.items():
        assert all(code in ALL_CODES for _, code in expected), name
        assert not any(code in RETIRED_CODES for _, code in expected), name
        if ".clean." not in name and name[:4] in LIVE_CODES:
            assert name[:4] in [code for _, code in expected], f"{name} does not expect its own code"


@pytest.mark.parametrize("code", LIVE_CODES)
def test_every_code_has_a_triggering_fixture_and_a_clean_twin(code):
    triggering = [name for name, expected in EXPECTED.items()
                  if name.startswith(code) and ".clean." not in name
                  and code in [c for _, c in expected]]
    assert f"{code}.jsonl" in triggering
    assert EXPECTED.get(f"{code}.clean.jsonl") == []
    assert (CODES_DIR / f"{code}.clean.jsonl").is_file()


def test_retired_codes_have_no_triggering_fixture():
    assert RETIRED_CODES == ["W403"]
    assert EXPECTED["W403.jsonl"] == []  # once reported for All Fives, which is now replayed


def all_fives_fixtures() -> list[str]:
    """The fixtures holding an All Fives match."""
    return sorted(name for name in EXPECTED if name.endswith(".jsonl")
                  and b'"variant":"all-fives"' in (CODES_DIR / name).read_bytes())


def test_w403_is_never_reported_on_all_fives_fixtures():
    names = all_fives_fixtures()
    assert len(names) >= 20 and "allfives.clean.jsonl" in names and "W403.jsonl" in names
    for name in names:
        assert "W403" not in [v.code for v in validate(name)], name


def test_fixtures_are_up_to_date_with_their_generator():
    spec = importlib.util.spec_from_file_location(
        "make_code_fixtures", HERE / "fixtures" / "make_code_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.build()
    assert module.EXPECTED == EXPECTED
    for name, data in module.FILES.items():
        on_disk = (CODES_DIR / name).read_bytes()
        if name.endswith(".gz"):
            data, on_disk = gzip.decompress(data), gzip.decompress(on_disk)
        elif name.endswith(".zst"):
            import zstandard

            data = zstandard.ZstdDecompressor().decompress(data)
            on_disk = zstandard.ZstdDecompressor().decompress(on_disk)
        assert data == on_disk, f"{name} is stale: run tests/fixtures/make_code_fixtures.py"


# -- codes that need more than one input ----------------------------------------


def test_f005_match_id_seen_again_in_another_file():
    first, second = "F005.clean.jsonl", "S101.clean.jsonl"  # both hold a complete match m1
    found = validate(first, second)
    assert [(Path(v.file).name, v.line, v.code) for v in found] == [(second, 1, "F005")]


def test_f007_missing_file_is_reported_and_the_run_goes_on(tmp_path):
    missing = tmp_path / "missing.jsonl"
    found = list(Validator().validate_paths([str(missing), str(CODES_DIR / "F007.clean.jsonl")]))
    assert [(v.line, v.code) for v in found] == [(None, "F007")]
    assert found[0].file == str(missing)


def test_f007_truncated_gzip_is_reported(tmp_path):
    data = gzip.compress((CODES_DIR / "F007.clean.jsonl").read_bytes(), mtime=0)
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[: len(data) // 2])
    assert "F007" in [v.code for v in Validator().validate_paths([str(cut)])]


# -- messages carry the numbers a user needs ------------------------------------

_TILE = re.compile(r"\[\d\s*[|,]\s*\d\]")


def numbers(message: str) -> set[int]:
    """The integers in a message, tile labels like [0|6] left out."""
    return {int(n) for n in re.findall(r"\d+", _TILE.sub(" ", message))}


def messages(name: str, code: str) -> list[str]:
    return [v.message for v in validate(name) if v.code == code]


def test_m205_message_names_the_stock_count():
    # draws with 2, 1 and 0 tiles in the stock
    found = messages("M205-empty-stock.jsonl", "M205")
    assert [2 in numbers(m) for m in found] == [True, False, False]
    assert 1 in numbers(found[1]) and 0 in numbers(found[2])


def test_m207_message_names_the_stock_count():
    assert all(3 in numbers(m) for m in messages("M207.jsonl", "M207"))


def test_m208_message_names_the_playable_tile():
    for message in messages("M208.jsonl", "M208"):
        assert re.search(r"\[(0\|6|6\|0|0,\s*6|6,\s*0)\]", message), message


def test_m206_message_names_the_drawn_and_the_next_tile():
    (message,) = messages("M206.jsonl", "M206")
    assert re.search(r"5\|6|6\|5", message) and re.search(r"4\|6|6\|4", message), message


def test_r303_messages_name_the_claimed_and_recomputed_points():
    (message,) = messages("R303.jsonl", "R303")
    assert {129, 123} <= numbers(message), message
    (message,) = messages("R303-blocked.jsonl", "R303")          # 8 + 10 - 3 = 15, not 20
    assert {20, 15} <= numbers(message), message
    (message,) = messages("R303-double-blank.jsonl", "R303")     # opponents 0 and 8: 8
    assert 8 in numbers(message), message


def test_r302_tie_message_gives_the_hand_totals():
    (message,) = messages("R302-tie.jsonl", "R302")
    assert {3, 10} <= numbers(message), message


def test_r305_message_names_the_scores_and_the_target():
    (message,) = messages("R305.jsonl", "R305")
    assert {60, 61} <= numbers(message), message


def test_r306_message_names_the_claimed_and_replayed_score():
    (message,) = messages("R306.jsonl", "R306")
    assert {122, 123} <= numbers(message), message


def test_s104_rotation_message_names_the_opener_and_the_expected_seat():
    (message,) = messages("S104-rotation.jsonl", "S104")
    assert "cat" in message and "bob" in message, message


def test_s102_message_names_the_hand_size():
    (message,) = messages("S102.jsonl", "S102")
    assert {8, 7} <= numbers(message), message
    (message,) = messages("S102-four.jsonl", "S102")
    assert {7, 6} <= numbers(message), message


def test_f003_message_names_the_seq_numbers():
    (message,) = messages("F003.jsonl", "F003")
    assert {30, 29} <= numbers(message), message


def test_w402_message_names_the_target_and_the_standard():
    (message,) = messages("W402.jsonl", "W402")
    assert {50, 100} <= numbers(message), message


def test_all_fives_messages_name_the_numbers():
    (message,) = messages("R308.jsonl", "R308")                 # [4|5] down: 2 + 3 + 1 + 4
    assert {5, 10} <= numbers(message), message
    (message,) = messages("R303-allfives.jsonl", "R303")        # 17 pips → 15, 27 → 25
    assert {17, 15, 27, 25} <= numbers(message), message
    (message,) = messages("S101-deal.jsonl", "S101")            # 2 × 15 tiles
    assert {15, 30, 28} <= numbers(message), message
    (message,) = messages("W402-rules.jsonl", "W402")
    assert {5, 7} <= numbers(message), message
    (message,) = messages("S104-allfives.jsonl", "S104")
    assert "ann went out" in message, message
    (message,) = messages("M205-allfives.jsonl", "M205")
    assert "empty boneyard" in message, message


# -- the round a violation names ---------------------------------------------------


def test_a_round_start_line_names_the_round_it_starts():
    lines = (CODES_DIR / "blocked.clean.jsonl").read_text(encoding="utf-8").splitlines()
    second = next(n for n, text in enumerate(lines) if '"round_start"' in text and '"round":2' in text)
    starts = json.loads(lines[second])
    lines[second] = json.dumps({**starts, "dealer": "ann", "seq": 7})  # W401, then F003 (no seq before)
    found = list(Validator().validate_lines(lines))
    assert [(v.line, v.code, v.round) for v in found] == [(second + 1, "W401", 2), (second + 1, "F003", 2)]
    lines[second] = json.dumps({**starts, "opener": 3})  # F002: the round is not started, but named
    found = list(Validator().validate_lines(lines))
    assert [(v.line, v.code, v.round) for v in found][0] == (second + 1, "F002", 2)


def test_a_round_left_open_is_named_where_its_successor_starts():
    found = validate("R307.jsonl")
    assert [(v.code, v.round) for v in found] == [("R307", 1)]
    assert "round 1" in found[0].message


# -- messages say what is wrong ----------------------------------------------------


def test_messages_name_what_is_wrong():
    [after_end] = validate("F004-after-match-end.jsonl")
    assert after_end.message.endswith("which has ended")
    [unknown] = validate("F004.jsonl")
    assert unknown.message.endswith("which has not started")
    [revealed] = validate("R304.jsonl")
    assert revealed.message == "bob's revealed hand leaves out [6|6], still held"


def test_a_tile_twice_in_one_hand_and_a_seq_of_zero_are_each_reported_once():
    lines = (CODES_DIR / "F003.clean.jsonl").read_text(encoding="utf-8").splitlines()
    deal = json.loads(lines[1])
    ann = deal["hands"]["ann"]
    deal["hands"]["ann"] = [ann[0], ann[0], *ann[2:]]
    found = list(Validator().validate_lines([lines[0], json.dumps(deal), *lines[2:]]))
    s102 = [v.message for v in found if v.code == "S102"]
    assert s102[0].endswith("is dealt twice (in ann's hand)")
    zero = json.loads(lines[2])
    zero["seq"] = 0
    found = list(Validator().validate_lines([*lines[:2], json.dumps(zero), *lines[3:]]))
    assert [(v.line, v.code) for v in found if v.line == 3] == [(3, "F002")]


# -- forfeits (format v1.2) ------------------------------------------------------------


def test_forfeit_closes_the_round_in_progress_without_r307_or_r305():
    for name in ("forfeit.clean.jsonl", "forfeit-tie.clean.jsonl", "forfeit-start.clean.jsonl",
                 "forfeit-allfives.clean.jsonl"):
        assert validate(name) == [], name


def test_forfeit_messages_say_who_wins_and_why():
    (message,) = messages("R306-forfeit-winner.jsonl", "R306")
    assert "claims winner bob, who forfeits" in message and "ann has the highest score" in message, message
    (message,) = messages("R306-forfeit-stranger.jsonl", "R306")
    assert message == "forfeit names zed, who is not a player of this match"
    (message,) = messages("R306-forfeit-scores.jsonl", "R306")
    assert message.startswith("claims 28 for cat; the replay gives 8 (round 1)"), message
    assert "round 3 was in progress at the forfeit: it takes no end-of-round points" in message
    (message,) = messages("R306-forfeit-allfives.jsonl", "R306")
    assert "the replay gives −5 = −15 + 5 + 5 (rounds 1, 2 and 3)" in message, message
    assert "its plays have scored" in message


def test_a_bad_forfeit_is_f002_naming_the_field():
    (message,) = messages("F002-forfeit-reason.jsonl", "F002")
    assert "rage-quit" in message and "$.forfeit.reason" in message, message
    (message,) = messages("F002-forfeit-missing.jsonl", "F002")
    assert "`reason`" in message, message


def test_an_illegal_move_before_a_forfeit_is_reported_alone():
    assert [v.code for v in validate("M203-forfeit.jsonl")] == ["M203"]
    assert [v.code for v in validate("M210-forfeit.jsonl")] == ["M210"]


def test_forfeit_result_is_the_highest_of_the_others():
    from drawlog.engine.match import Match

    match = Match(["ann", "bob", "cat"])
    match.scores = [10, 40, 10]                 # the leader forfeits: ann and cat tie, nobody wins
    assert match.check_match_end({"ann": 10, "bob": 40, "cat": 10}, None, "bob") == []
    assert match.result.decided and match.result.winner is None and not match.result.drawn
    match = Match(["ann", "bob", "cat"])
    match.scores = [10, 40, 10]                 # the target is not needed (no R305)
    assert match.check_match_end({"ann": 10, "bob": 40, "cat": 10}, "bob", "cat") == []
    assert match.result.winner == 1
    [fault] = match.check_match_end({"ann": 10, "bob": 40, "cat": 10}, None, "cat")
    assert fault.code == "R306" and "bob has the highest score of the players left" in fault.message


# -- W405 ---------------------------------------------------------------------------


def test_w405_names_the_value_and_the_time_is_ignored():
    found = validate("W405.jsonl")
    assert [(v.line, v.code, v.severity) for v in found] == [(1, "W405", "warning"), (18, "W405", "warning")]
    assert found[0].message.startswith('ts "2024-05-01T12:00:00" is not an RFC 3339 timestamp')
    assert '"1714564800"' in found[1].message


def test_w405_a_long_value_is_shortened_and_a_number_is_f002():
    lines = (CODES_DIR / "W405.clean.jsonl").read_text(encoding="utf-8").splitlines()
    start = json.loads(lines[0])
    found = list(Validator().validate_lines([json.dumps({**start, "ts": "x" * 500}), *lines[1:]]))
    assert [(v.line, v.code) for v in found] == [(1, "W405")] and len(found[0].message) < 150
    found = list(Validator().validate_lines([json.dumps({**start, "ts": 1714564800}), *lines[1:]]))
    assert (1, "F002") in [(v.line, v.code) for v in found]


# -- messages that say the fix ----------------------------------------------------------


def test_m203_names_the_end_the_tile_fits():
    (message,) = messages("M203-other-end.jsonl", "M203")
    assert message == "[2|2] does not match the right end (0); it fits the left end (2)"
    (message,) = messages("M203.jsonl", "M203")           # [1|2] on ends 0 and 0: it fits neither
    assert message == "[1|2] does not match the left end (0)"


def test_m210_says_what_to_do():
    (message,) = messages("M210.jsonl", "M210")
    assert message.endswith("a player who can place must place, not draw"), message


def test_r303_shows_the_arithmetic():
    (message,) = messages("R303.jsonl", "R303")
    assert message == "claims 129 points for ann; ann went out: bob's pips, 123"
    (message,) = messages("R303-blocked.jsonl", "R303")
    assert message.endswith("blocked with totals 3, 8 and 10: 8 + 10 − 3 = 15"), message
    (message,) = messages("R303-double-blank.jsonl", "R303")
    assert message.endswith("cat went out: the opponents' pips, 0 + 8 = 8"), message
    (message,) = messages("R303-allfives.jsonl", "R303")
    assert "ann's 17 pips left round to 15: −15" in message and "bob's 27 pips left round to 25: −25" in message


def test_r306_shows_the_rounds_a_score_adds_up():
    (message,) = messages("R306.jsonl", "R306")
    assert message == "claims 122 for ann; the replay gives 123 (round 1)"
    (message,) = messages("R303-carried.jsonl", "R306")
    assert message == "claims 66 for ann; the replay gives 61 = 15 + 46 (rounds 2 and 4)"


def test_f001_on_a_pretty_printed_log_says_what_it_looks_like():
    found = validate("F001-pretty.jsonl")
    assert [v.message.endswith("a log needs one object per line") for v in found] == [True] + [False] * 4
    found = list(Validator().validate_lines(['[{"type":"pass","match":"m1","player":"bob"}]']))
    assert [v.code for v in found] == ["F002"] and "not a JSON array" in found[0].message


def test_f001_on_a_python_repr_says_json_needs_double_quotes():
    found = list(Validator().validate_lines(["{'type': 'pass', 'match': 'm1', 'player': 'bob'}"] * 2))
    assert [v.code for v in found] == ["F001", "F001"]
    assert found[0].message.endswith("JSON needs double quotes (json.dumps, not str)")
    assert "double quotes" not in found[1].message          # once an input
