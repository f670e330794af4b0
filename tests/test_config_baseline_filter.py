"""Issue 11's missing pieces: configuration files, baselines, ``drawlog filter``, ``python -m drawlog``,
completion and readable ``--help``, the Python API's manners, and an honest verdict under ``--select``.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

try:
    import tomllib
except ImportError:  # Python 3.10: the dependency tomli is the same parser
    import tomli as tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

import drawlog
from drawlog.check.baseline import Baseline, fingerprint
from drawlog.check.config import ConfigError, find_config, load_config
from drawlog.cli import app
from drawlog.engine.board import Board
from drawlog.engine.tiles import bits
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events

ENV = {"COLUMNS": "200", "NO_COLOR": "1", "FORCE_COLOR": None}
ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def cli(*args: object, stdin: bytes | None = None):
    result = runner.invoke(app, [str(arg) for arg in args], env=ENV, input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result


def match_lines(match_id: str, seed: int = 1, meta: dict | None = None) -> list[bytes]:
    lines = encode_events(Simulator(seed, SimulationOptions()).match(match_id))
    if meta is not None:
        first = json.loads(lines[0])
        first["meta"] = meta
        lines[0] = json.dumps(first).encode() + b"\n"
    return lines


def faulty_lines(match_id: str, seed: int = 1, meta: dict | None = None) -> list[bytes]:
    """A match with W401 on its first line and its first play turned into a pass (M207, M208)."""
    lines = match_lines(match_id, seed, meta)
    first = json.loads(lines[0])
    first["colour"] = "red"
    lines[0] = json.dumps(first).encode() + b"\n"
    index = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "play")
    play = json.loads(lines[index])
    lines[index] = json.dumps({"type": "pass", "match": play["match"], "player": play["player"]}).encode() + b"\n"
    return lines


def interleave(*matches: list[bytes]) -> list[bytes]:
    """The matches' lines taken in turn, one line of each, as several tables log at once."""
    out: list[bytes] = []
    for index in range(max(len(lines) for lines in matches)):
        out.extend(lines[index] for lines in matches if index < len(lines))
    return out


@pytest.fixture
def logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder (the current one) with bad.jsonl: one faulty match among two good ones, interleaved."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.jsonl").write_bytes(b"".join(interleave(
        match_lines("g1", 1, {"tournament": "spring"}), faulty_lines("b1", 2, {"tournament": "autumn"}),
        match_lines("g2", 3, {"tournament": "spring"}))))
    return tmp_path


def codes_of(output: str) -> set[str]:
    return {line.split()[1] for line in output.splitlines() if line.startswith("bad.jsonl:")}


# -- configuration -------------------------------------------------------------


def everything() -> set[str]:
    return codes_of(cli("validate", "bad.jsonl", "-f", "concise", "--isolated").stdout)


def test_drawlog_toml_selects_and_the_command_line_wins(logs: Path):
    found = everything()
    assert {"W401", "M207", "M208"} <= found
    (logs / "drawlog.toml").write_text('select = ["W"]\n')
    result = cli("validate", "bad.jsonl", "-f", "concise")
    assert codes_of(result.stdout) == {"W401"} and result.exit_code == 0
    assert codes_of(cli("validate", "bad.jsonl", "-f", "concise", "--select", "M207").stdout) == {"M207"}
    assert everything() == found


def test_config_found_upwards_and_drawlog_toml_wins_over_pyproject(logs: Path, monkeypatch: pytest.MonkeyPatch):
    (logs / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.drawlog]\nignore = ["W401"]\n')
    assert find_config(logs) == logs / "pyproject.toml"
    sub = logs / "deep" / "er"
    sub.mkdir(parents=True)
    found = everything()
    monkeypatch.chdir(sub)
    assert find_config() == logs / "pyproject.toml"
    assert codes_of(cli("validate", "../../bad.jsonl", "-f", "concise").stdout.replace("../../", "")) \
        == found - {"W401"}
    (logs / "drawlog.toml").write_text('ignore = ["M208"]\n')
    assert find_config() == logs / "drawlog.toml"
    (logs / "deep" / "pyproject.toml").write_text('[project]\nname = "no drawlog table here"\n')
    assert find_config() == logs / "drawlog.toml"


def test_config_keys_format_extend_max_per_match_and_per_file_ignores(logs: Path):
    (logs / "drawlog.toml").write_text(
        'format = "concise"\nselect = ["M"]\nextend-select = ["W401"]\nextend-ignore = ["M208"]\n'
        '[per-file-ignores]\n"other*.jsonl" = ["W"]\n')
    result = cli("validate", "bad.jsonl")
    assert result.stdout.startswith("bad.jsonl:") and codes_of(result.stdout) == {"W401", "M207"}
    (logs / "drawlog.toml").write_text('max-per-match = 1\n')
    assert json.loads(cli("validate", "bad.jsonl", "-f", "json").stdout)["summary"]["suppressed"] > 0
    assert json.loads(cli("validate", "bad.jsonl", "-f", "json", "--isolated").stdout)["summary"]["suppressed"] == 0
    found = everything()
    (logs / "drawlog.toml").write_text('format = "concise"\n[per-file-ignores]\n"bad.*" = ["W401", "M208"]\n')
    assert codes_of(cli("validate", "bad.jsonl").stdout) == found - {"W401", "M208"}
    document = json.loads(cli("validate", "bad.jsonl", "-f", "json").stdout)
    assert document["summary"]["violations"] == len(document["violations"]) and document["summary"]["warnings"] == 0


def test_config_file_given_and_pyproject_table(logs: Path):
    (logs / "elsewhere.toml").write_text('select = ["M208"]\n')
    assert codes_of(cli("validate", "bad.jsonl", "-f", "concise", "--config", "elsewhere.toml").stdout) == {"M208"}
    (logs / "pyproject.toml").write_text('[tool.drawlog]\nselect = ["M207"]\n')
    assert codes_of(cli("validate", "bad.jsonl", "-f", "concise", "--config", "pyproject.toml").stdout) == {"M207"}
    assert cli("validate", "bad.jsonl", "--config", "elsewhere.toml", "--isolated").exit_code == 2


@pytest.mark.parametrize(("text", "key"), [
    ('selct = ["W"]\n', "selct"),
    ('select = "W"\n', "select"),
    ('max-per-match = "3"\n', "max-per-match"),
    ('jobs = 0\n', "jobs"),
    ('format = "xml"\n', "format"),
    ('select = ["Q9"]\n', "select"),
    ('[per-file-ignores]\n"*.jsonl" = "W401"\n', "per-file-ignores"),
])
def test_a_bad_key_is_one_line_naming_file_and_key(logs: Path, text: str, key: str):
    (logs / "drawlog.toml").write_text(text)
    for command in (["validate", "bad.jsonl"], ["audit", "bad.jsonl", "--out", "tables"]):
        result = cli(*command)
        assert result.exit_code == 2
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "drawlog.toml" in lines[0] and key in lines[0], result.stderr


def test_pyproject_key_error_names_the_table(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.drawlog]\nignore = [1]\n')
    with pytest.raises(ConfigError, match=r"pyproject.toml:2: \[tool.drawlog\] ignore"):
        load_config(tmp_path / "pyproject.toml")


def test_audit_takes_select_and_jobs_from_the_config(logs: Path):
    (logs / "drawlog.toml").write_text('select = ["W"]\njobs = 2\n')
    result = cli("audit", "bad.jsonl", "--out", "tables")
    assert result.exit_code == 0, result.output  # W401 only: no error selected
    result = cli("audit", "bad.jsonl", "--out", "tables", "--isolated")
    assert result.exit_code == 1


def test_config_formats_are_validates():
    from drawlog.check.config import FORMATS
    from drawlog.cli.app import OutputFormat

    assert set(FORMATS) == {item.value for item in OutputFormat}


def test_tomli_for_python_310_and_typer_pinned():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    dependencies = project["dependencies"]
    assert any(item.startswith("tomli>=2") and "python_version < '3.11'" in item for item in dependencies)
    typer_pin = next(item for item in dependencies if item.startswith("typer"))
    assert "<" in typer_pin and ">=" in typer_pin


# -- baseline ------------------------------------------------------------------


def test_baseline_hides_known_violations_and_survives_growth(logs: Path):
    count = json.loads(cli("validate", "bad.jsonl", "-f", "json").stdout)["summary"]["violations"]
    result = cli("validate", "bad.jsonl", "--write-baseline", "base.json")
    assert result.exit_code == 0 and f"{count} violations" in result.stderr
    document = json.loads((logs / "base.json").read_text())
    assert document["drawlog_baseline"] == 1
    entry = document["violations"][0]
    assert set(entry) == {"fingerprint", "file", "code", "match", "message", "count"} and "line" not in entry
    result = cli("validate", "bad.jsonl", "--baseline", "base.json")
    assert result.exit_code == 0
    assert "no errors reported; 1 match invalid" in result.stdout
    assert f"{count} in the baseline, not shown" in result.stdout
    with open(logs / "bad.jsonl", "ab") as log:  # the log grows: the old faults move nowhere, a new one comes
        log.writelines(faulty_lines("b2", 5))
    result = cli("validate", "bad.jsonl", "--baseline", "base.json", "-f", "json")
    assert result.exit_code == 1
    found = json.loads(result.stdout)
    assert {item["match"] for item in found["violations"]} == {"b2"}
    assert found["summary"]["baselined"] == count and found["summary"]["errors"] >= 2


def test_baseline_lines_do_not_matter(logs: Path):
    cli("validate", "bad.jsonl", "--write-baseline", "base.json")
    lines = (logs / "bad.jsonl").read_bytes()
    (logs / "bad.jsonl").write_bytes(b"\n\n" + lines)  # every line moves
    assert cli("validate", "bad.jsonl", "--baseline", "base.json").exit_code == 0


def test_bad_baseline_is_one_line_exit_2(logs: Path):
    (logs / "base.json").write_text("[1, 2]")
    result = cli("validate", "bad.jsonl", "--baseline", "base.json")
    assert result.exit_code == 2 and "base.json" in result.stderr
    assert cli("validate", "bad.jsonl", "--baseline", "missing.json").exit_code == 2


def test_baseline_counts_repeated_fingerprints(logs: Path):
    violations, _ = drawlog.validate_paths("bad.jsonl")
    baseline = Baseline()
    baseline.counts[(violations[0].file, violations[0].code, violations[0].match, violations[0].message)] = 1
    assert baseline.absorbs(violations[0]) and not baseline.absorbs(violations[0])
    assert len(fingerprint(violations[0])) == 16 and fingerprint(violations[0]) == fingerprint(violations[0])


# -- filter ----------------------------------------------------------------------


def lines_by_match(path: Path) -> list[str]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as handle:
        return [json.loads(line)["match"] for line in handle]


def runs(ids: list[str]) -> list[str]:
    """The match ids in the order their blocks come (a match split in two blocks shows twice)."""
    return [item for index, item in enumerate(ids) if index == 0 or ids[index - 1] != item]


def test_filter_valid_and_invalid_write_whole_matches_one_after_another(logs: Path):
    source = (logs / "bad.jsonl").read_bytes().splitlines(keepends=True)
    result = cli("filter", "bad.jsonl", "--valid", "-o", "good.jsonl")
    assert result.exit_code == 0 and "2 matches of 3" in result.stderr
    ids = lines_by_match(logs / "good.jsonl")
    assert runs(ids) == ["g1", "g2"]
    assert (logs / "good.jsonl").read_bytes() == b"".join(
        line for line in source if json.loads(line)["match"] == "g1") + b"".join(
        line for line in source if json.loads(line)["match"] == "g2")
    assert cli("filter", "bad.jsonl", "--invalid", "-o", "bad-only.jsonl.gz").exit_code == 0
    assert runs(lines_by_match(logs / "bad-only.jsonl.gz")) == ["b1"]
    assert cli("validate", "good.jsonl").exit_code == 0


def test_filter_player_match_tournament_and_stdin(logs: Path):
    cli("filter", "bad.jsonl", "--tournament", "spring", "-o", "spring.jsonl")
    assert runs(lines_by_match(logs / "spring.jsonl")) == ["g1", "g2"]
    cli("filter", "bad.jsonl", "--match", "g2", "--match", "b1", "-o", "two.jsonl")
    assert runs(lines_by_match(logs / "two.jsonl")) == ["b1", "g2"]
    cli("filter", "bad.jsonl", "--player", "nobody", "-o", "none.jsonl")
    assert (logs / "none.jsonl").read_bytes() == b""
    player = json.loads((logs / "bad.jsonl").read_bytes().splitlines()[0])["players"][0]
    cli("filter", "bad.jsonl", "--player", player, "--invalid", "-o", "p.jsonl")
    assert set(lines_by_match(logs / "p.jsonl")) <= {"b1"}
    result = cli("filter", "-", "--match", "g1", stdin=(logs / "bad.jsonl").read_bytes())
    assert runs([json.loads(line)["match"] for line in result.stdout.splitlines()]) == ["g1"]


def test_filter_split_by_and_lines_of_no_match(logs: Path):
    with open(logs / "bad.jsonl", "ab") as log:
        log.write(b"not json\n\n" + json.dumps({"type": "pass", "match": "ghost", "player": "x"}).encode() + b"\n")
    assert cli("filter", "bad.jsonl", "--split-by", "match", "-o", "each").exit_code == 0
    assert sorted(path.name for path in (logs / "each").iterdir()) == ["b1.jsonl", "g1.jsonl", "g2.jsonl"]
    cli("filter", "bad.jsonl", "--split-by", "tournament", "-o", "byt")
    assert runs(lines_by_match(logs / "byt" / "spring.jsonl")) == ["g1", "g2"]
    assert cli("filter", "bad.jsonl", "--split-by", "match").exit_code == 2
    assert cli("filter", "bad.jsonl", "--valid", "--invalid").exit_code == 2
    assert cli("filter", "missing.jsonl").exit_code == 2


# -- python -m, completion, --help ------------------------------------------------


def test_python_dash_m_runs_the_command_line():
    result = subprocess.run([sys.executable, "-m", "drawlog", "--version"], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0 and result.stdout.startswith("drawlog ")


def test_completion_is_offered():
    result = cli("--help")
    assert "--install-completion" in result.stdout and "--show-completion" in result.stdout


def test_every_help_is_readable():
    commands = [name for name in app.registered_commands]
    names = [command.name or command.callback.__name__ for command in commands]
    assert "filter" in names
    for name in names:
        result = cli(name, "--help")
        assert result.exit_code == 0, name
        assert "list[" not in result.stdout and "TEXT..." not in result.stdout, (name, result.stdout)
        assert "{" not in result.stdout.splitlines()[0], (name, result.stdout)


# -- the Python API ---------------------------------------------------------------


def test_validate_lines_splits_a_whole_log_and_paths_may_be_path(logs: Path):
    lines = (logs / "bad.jsonl").read_bytes()
    by_list, _ = drawlog.validate_lines(lines.splitlines())
    by_bytes, summary = drawlog.validate_lines(lines)
    by_str, _ = drawlog.validate_lines(lines.decode())
    assert by_list == by_bytes == by_str and summary.lines == len(lines.splitlines())
    from_path, _ = drawlog.validate_paths(logs / "bad.jsonl")
    from_list, _ = drawlog.validate_paths([Path("bad.jsonl")])
    assert [item.code for item in from_path] == [item.code for item in from_list] == [item.code for item in by_list]
    assert list(drawlog.Validator().validate_paths(Path("bad.jsonl")))


def test_readable_reprs():
    match = drawlog.Match(["ann", "bob"])
    assert repr(match) == "Match('draw', target=100, rounds=0, scores={'ann': 0, 'bob': 0})"
    hands = [bits(range(7)), bits(range(7, 14))]
    text = repr(drawlog.Round(("ann", "bob"), 0, hands, bits(range(14, 28))))
    assert text.startswith("Round(number=1, turn='ann', line=Line(empty), stock=14, hands={'ann': [0|0]")
    assert repr(drawlog.FivesRound(("ann", "bob"), 0, hands, bits(range(14, 28)))).startswith("FivesRound(")
    board = Board(True)
    board.place((6, 6), "right")
    board.place((6, 3), "right")
    assert repr(board) == "Board([6|6] [6|3], spinner=[6|6])"


def test_violations_frame(logs: Path):
    violations, _ = drawlog.validate_paths("bad.jsonl")
    frame = drawlog.violations_frame(violations)
    assert frame.columns == ["file", "line", "match", "round", "player", "code", "severity", "message", "follows"]
    assert frame.height == len(violations) and frame["code"].to_list() == [item.code for item in violations]
    assert drawlog.violations_frame([]).height == 0


# -- an honest verdict -----------------------------------------------------------


def test_select_w_does_not_say_no_errors_while_matches_are_invalid(logs: Path):
    result = cli("validate", "bad.jsonl", "--select", "W")
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("no errors reported (select: W); 1 match invalid:"), last
    concise = cli("validate", "bad.jsonl", "--select", "W", "-f", "concise").stdout.strip().splitlines()[-1]
    assert concise.startswith("no errors reported (select: W); 1 match invalid")


def test_tables_functions_take_str_or_path(tmp_path):
    from drawlog.tables.dataset import open_tables, write_tables
    from drawlog.tables.reports import leaderboard, query

    sample = str(Path(__file__).resolve().parent.parent / "sample_logs" / "all-fives.jsonl")
    for out in (str(tmp_path / "as-str"), tmp_path / "as-path"):
        summary = write_tables([sample], out)
        assert summary.matches == 4 and set(open_tables(out)) >= {"matches", "moves"}
        assert leaderboard(out).height and query(out, "SELECT count(*) AS n FROM matches")["n"][0] == 4


def test_filter_of_inputs_that_cannot_be_read_exits_2_and_keeps_the_previous_output(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("binary.jsonl").write_bytes(b"\x00not a log\n")
    Path("broken.jsonl.gz").write_bytes(b"not gzip")
    Path("out.jsonl").write_text("PREVIOUS\n")
    for inputs in (["binary.jsonl"], ["binary.jsonl", "broken.jsonl.gz", "missing.jsonl"]):
        result = cli("filter", *inputs, "-o", "out.jsonl")
        assert result.exit_code == 2
        assert "F007" in result.stderr
        assert Path("out.jsonl").read_text() == "PREVIOUS\n"
