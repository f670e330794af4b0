"""The analysis's outputs: ``analyze --out`` in the statistics layout beside ``stats``' tables, ``query`` over them,
``report``'s Analysis section, and ``replay FILE:LINE --analyze``."""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from drawlog.analysis.summary import DECISION_COLUMNS, PLAYER_COLUMNS
from drawlog.cli import app
from drawlog.tables.analysis_tables import ANALYSIS_TABLES
from drawlog.tables.output import MANIFEST
from drawlog.tables.stats import TABLES

runner = CliRunner()
SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
LOG = SAMPLES / "tournament-2p.jsonl"
MATCH = "t2-000001"


def run(*args: object) -> CliRunner:
    return runner.invoke(app, [str(arg) for arg in args])


def analyze_out(out: Path, *more: object, log: Path = LOG) -> str:
    result = run("analyze", log, "--match", MATCH, "--samples", 4, "--seed", 1, "--format", "json", "--out", out,
                 *more)
    assert result.exit_code == 0, result.output
    return result.stdout


def files_of(folder: Path) -> dict[str, int]:
    """Every file of ``folder``'s current generation (not the manifest, not the readers' lock) with its inode: what was
    kept, linked or rewritten."""
    folder = folder / os.readlink(folder / ".gen-current")
    return {str(path.relative_to(folder)): path.stat().st_ino for path in folder.rglob("*")
            if path.is_file() and path.name not in (MANIFEST, ".readers.lock")}


@pytest.fixture()
def stats_then_analysis(tmp_path: Path) -> Path:
    out = tmp_path / "stats"
    assert run("stats", LOG, "--out", out).exit_code == 0
    analyze_out(out)
    return out


def test_the_tables_are_laid_out_as_stats_lays_out_its_own(stats_then_analysis: Path) -> None:
    out = stats_then_analysis
    for name in ANALYSIS_TABLES:
        assert sorted(path.name for path in (out / name).iterdir()) == ["part-00000.parquet"]
    decisions = pl.read_parquet(out / "decisions")  # (polars reads the table's folder, as the README says)
    assert list(decisions.schema.items()) == [(name, getattr(pl, kind)) for name, kind in DECISION_COLUMNS]
    players = pl.read_parquet(out / "analysis_players" / "part-00000.parquet")
    assert list(players.schema.items()) == [(name, getattr(pl, kind)) for name, kind in PLAYER_COLUMNS]
    assert players["player"].to_list() == ["p1", "p2"] and players["decisions"].sum() == decisions.height == 116
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["table_format"] == 5 and manifest["rows"]["moves"] > 0  # stats' manifest, kept
    assert manifest["analysis"]["samples"] == 4 and manifest["analysis"]["seed"] == 1
    assert manifest["analysis"]["match"] == MATCH and manifest["analysis"]["inputs"] == [str(LOG)]
    assert manifest["analysis"]["rows"] == {"decisions": 116, "analysis_players": 2,
                                            "luck": pl.read_parquet(out / "luck").height}


def test_analyze_leaves_stats_tables_untouched(tmp_path: Path) -> None:
    out = tmp_path / "stats"
    assert run("stats", LOG, "--out", out).exit_code == 0
    before = files_of(out)
    analyze_out(out)
    after = files_of(out)
    assert {name: after[name] for name in before} == before  # the very same files (hard links)
    assert set(after) - set(before) == {f"{name}/part-00000.parquet" for name in ANALYSIS_TABLES}


def test_a_later_stats_run_keeps_the_analysis_tables(stats_then_analysis: Path) -> None:
    out = stats_then_analysis
    decisions = pl.read_parquet(out / "decisions")
    entry = json.loads((out / MANIFEST).read_text())["analysis"]
    again = run("stats", LOG, "--out", out)  # incremental: nothing replayed
    assert again.exit_code == 0, again.output
    rebuilt = run("stats", LOG, SAMPLES / "all-fives.jsonl", "--out", out, "--rebuild")
    assert rebuilt.exit_code == 0, rebuilt.output
    assert pl.read_parquet(out / "decisions").equals(decisions)
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["analysis"] == entry and len(manifest["inputs"]) == 2
    assert sorted(path.name for path in out.iterdir() if path.is_dir() and not path.name.startswith(".")) == \
        sorted([*TABLES, *ANALYSIS_TABLES])


def test_analyze_again_replaces_only_its_tables(stats_then_analysis: Path) -> None:
    out = stats_then_analysis
    moves = pl.read_parquet(out / "moves")
    analyze_out(out, "--seed", 2)
    assert json.loads((out / MANIFEST).read_text())["analysis"]["seed"] == 2
    assert pl.read_parquet(out / "moves").equals(moves)
    assert sorted(path.name for path in (out / "decisions").iterdir()) == ["part-00000.parquet"]


def test_query_joins_the_analysis_tables_with_stats_tables(stats_then_analysis: Path) -> None:
    result = run("query", stats_then_analysis,
                 "SELECT d.player, m.variant, COUNT(*) AS decisions, SUM(d.error) AS error FROM decisions d "
                 "JOIN matches m ON m.file = d.file AND m.match = d.match GROUP BY d.player, m.variant "
                 "ORDER BY d.player", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "player,variant,decisions,error"
    rows = [line.split(",") for line in result.stdout.splitlines()[1:]]
    players = pl.read_parquet(stats_then_analysis / "analysis_players")
    assert [(row[0], row[1], int(row[2])) for row in rows] == [
        (each["player"], "draw", each["decisions"]) for each in players.to_dicts()]
    for row, each in zip(rows, players.to_dicts()):
        assert float(row[3]) == pytest.approx(each["mean_error"] * each["decisions"])


def test_analyze_alone_makes_a_folder_query_reads(tmp_path: Path) -> None:
    out = tmp_path / "analysis"
    analyze_out(out)
    assert json.loads((out / MANIFEST).read_text())["table_format"] == 5
    result = run("query", out, "SELECT COUNT(*) AS n FROM decisions", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["n", "116"]
    missing = run("query", out, "SELECT COUNT(*) FROM moves")
    assert missing.exit_code == 2


def test_analyze_refuses_a_folder_drawlog_did_not_write(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    result = run("analyze", LOG, "--match", MATCH, "--samples", 1, "--out", tmp_path)
    assert result.exit_code == 2 and "--out" in result.output  # refused before the work
    assert "holds files drawlog did not write" in result.output and "Traceback" not in result.output
    assert [path.name for path in tmp_path.iterdir()] == ["mine.txt"]
    remote = run("analyze", LOG, "--match", MATCH, "--samples", 1, "--out", "s3://bucket/stats")
    assert remote.exit_code == 2 and "a local folder" in remote.output


# -- report ---------------------------------------------------------------------------------------------------


def _section(page: str) -> str:
    start = page.index('<section id="analysis">')
    return page[start:page.index("</section>", start)]


def _player_rows(section: str) -> dict[str, list[str]]:
    table = section[section.index("id=analysis-players"):section.index("</table>")]
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", table[table.index("<tbody>"):]):
        cells = [html.unescape(re.sub(r"<[^>]+>", "", cell)) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        rows[cells[0]] = cells
    return rows


def test_report_from_a_folder_shows_the_analysis(stats_then_analysis: Path, tmp_path: Path) -> None:
    page_path = tmp_path / "r.html"
    result = run("report", stats_then_analysis, "-o", page_path, "-q", "--logs", LOG)
    assert result.exit_code == 0, result.output
    page = page_path.read_text()
    assert "<a href='#analysis'>Analysis</a>" in page
    section = _section(page)
    players = pl.read_parquet(stats_then_analysis / "analysis_players").to_dicts()
    rows = _player_rows(section)
    assert set(rows) == {"p1", "p2"}
    for each in players:
        cells = rows[each["player"]]
        assert cells[1] == "draw" and cells[2] == f"{each['decisions']:,}"
        assert cells[3] == f"{each['accuracy']:,.2f}" and cells[4] == f"{each['mean_error']:,.2f}"
        assert cells[5] == f"{each['blunders_per_100']:,.2f}" and cells[6] == f"{each['mistakes_per_100']:,.2f}"
        assert cells[9] == f"{each['luck']:,.2f}" and cells[10] == f"{each['luck_adjusted']:,.2f}"
        assert cells[11] == (f"{each['peek_rate']:.1%}" if each["peek_rate"] is not None else "\u2014")
        assert cells[12] == (f"{each['peek_z']:,.2f}" if each["peek_z"] is not None else "\u2014")
        assert cells[13] == each["verdict"]
    # the critical moments: those analyze --format json names, each with its board and replay command
    document = json.loads(run("analyze", LOG, "--match", MATCH, "--samples", 4, "--seed", 1,
                              "--format", "json").stdout)
    lines = [moment["line"] for moment in document["matches"][0]["critical_moments"]]
    moments = section[section.index("<table class=moments>"):]
    shown = [int(line) for line in re.findall(r"<tr><td class=num>(\d+)</td>", moments)]
    assert shown == lines and len(lines) >= 5
    assert moments.count("<details><summary>board</summary><div class=board><svg") == len(lines)
    assert f"drawlog replay {LOG}:{lines[0]} --analyze" in moments


def test_report_without_analysis_tables_has_no_section(tmp_path: Path) -> None:
    out = tmp_path / "stats"
    assert run("stats", LOG, "--out", out).exit_code == 0
    assert run("report", out, "-o", tmp_path / "r.html", "-q").exit_code == 0
    page = (tmp_path / "r.html").read_text()
    assert 'id="analysis"' not in page and "#analysis" not in page
    refused = run("report", out, "-o", tmp_path / "s.html", "-q", "--analyze")
    assert refused.exit_code == 2 and "--logs" in refused.output


def test_report_analyze_from_logs_equals_the_tables(tmp_path: Path) -> None:
    """``report --analyze`` at analyze's defaults shows what ``analyze --out`` at the same defaults wrote."""
    log = tmp_path / "one.jsonl"
    log.write_text("".join(line + "\n" for line in LOG.read_text().splitlines() if f'"{MATCH}"' in line))
    assert run("report", log, "-o", tmp_path / "r.html", "-q", "--analyze").exit_code == 0
    rows = _player_rows(_section((tmp_path / "r.html").read_text()))
    result = run("analyze", log, "--out", tmp_path / "tables")
    assert result.exit_code == 0, result.output
    for each in pl.read_parquet(tmp_path / "tables" / "analysis_players").to_dicts():
        assert rows[each["player"]][3] == f"{each['accuracy']:,.2f}"
        assert rows[each["player"]][8] == f"{each['result']:,.2f}"


def test_strings_of_the_analysis_tables_are_escaped(tmp_path: Path) -> None:
    """A player named with markup, and a verdict planted in the table: text in the page, never markup."""
    log = tmp_path / "hostile.jsonl"
    name = "<img src=x onerror=alert(1)>"
    text = "".join(line + "\n" for line in LOG.read_text().splitlines() if f'"{MATCH}"' in line)
    log.write_text(text.replace('"p1"', json.dumps(name)))
    out = tmp_path / "stats"
    assert run("stats", log, "--out", out).exit_code == 0
    analyze_out(out, log=log)
    players = out / "analysis_players" / "part-00000.parquet"
    pl.read_parquet(players).with_columns(verdict=pl.lit("<script>alert(2)</script>")).write_parquet(players)
    assert run("report", out, "-o", tmp_path / "r.html", "-q", "--logs", log).exit_code == 0
    section = _section((tmp_path / "r.html").read_text())
    assert "<img" not in section and "<script" not in section
    assert html.escape(name, quote=True) in section and "&lt;script&gt;alert(2)&lt;/script&gt;" in section
    assert set(_player_rows(section)) == {name, "p2"}


def test_report_refuses_analysis_tables_of_other_types(stats_then_analysis: Path, tmp_path: Path) -> None:
    players = stats_then_analysis / "analysis_players" / "part-00000.parquet"
    pl.read_parquet(players).with_columns(pl.col("accuracy").cast(pl.String)).write_parquet(players)
    result = run("report", stats_then_analysis, "-o", tmp_path / "r.html", "-q")
    assert result.exit_code == 2 and "accuracy is String, not Float64" in result.output
    assert not (tmp_path / "r.html").exists()


# -- replay --analyze -----------------------------------------------------------------------------------------


def _frames(*args: object) -> list[dict]:
    result = run("replay", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_replay_analyze_equals_analyze_for_the_same_decision_and_seed() -> None:
    document = json.loads(run("analyze", LOG, "--match", MATCH, "--samples", 16, "--seed", 3,
                              "--format", "json").stdout)
    for decision in document["decisions"][:12:3]:
        frame = _frames(f"{LOG}:{decision['line']}", "--analyze", "--samples", 16, "--seed", 3)[-1]
        shown = frame["analysis"]
        assert frame["line"] == decision["line"] and shown["decision"] is True
        assert shown["actions"] == decision["actions"]  # the same floats, to the last digit
        assert (shown["taken"], shown["best"], shown["omniscient_best"]) == (
            decision["action"], decision["best"], decision["omniscient_best"])
        assert (shown["error"], shown["error_se"], shown["class"], shown["swing"]) == (
            decision["error"], decision["error_se"], decision["class"], decision["swing"])
        assert shown["player"] == decision["player"] and shown["samples"] == 16
    assert "analysis" not in _frames(f"{LOG}:{document['decisions'][0]['line']}")[-1]  # only with --analyze


def test_replay_analyze_says_when_a_frame_is_not_a_decision() -> None:
    document = json.loads(run("analyze", LOG, "--match", MATCH, "--samples", 1, "--format", "json").stdout)
    weighed = {decision["line"] for decision in document["decisions"]}
    events = [json.loads(line) for line in LOG.read_text().splitlines()]
    start = next(number for number, event in enumerate(events, 1) if event["type"] == "round_start")
    only = next(number for number, event in enumerate(events, 1)
                if event.get("match") == MATCH and event["type"] in ("play", "draw") and number not in weighed)
    assert _frames(f"{LOG}:{start}", "--analyze")[-1]["analysis"] == {
        "decision": False, "why": "not a move to weigh: only plays and draws are decisions"}
    assert _frames(f"{LOG}:{only}", "--analyze")[-1]["analysis"] == {
        "decision": False, "why": "an only move: fewer than two different legal actions"}


def test_replay_analyze_text_draws_the_table_under_the_board() -> None:
    document = json.loads(run("analyze", LOG, "--match", MATCH, "--samples", 16, "--seed", 3,
                              "--format", "json").stdout)
    decision = document["decisions"][5]
    result = run("replay", f"{LOG}:{decision['line']}", "--analyze", "--samples", 16, "--seed", 3)
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert (f"analysis of {decision['player']}'s decision (16 deals): error {decision['error']:.2f} "
            f"({decision['class']}), swing {decision['swing']:.2f}") in text
    for action in decision["actions"]:
        row = next(line for line in text.splitlines() if line.strip().startswith(action["action"] + " "))
        assert f"{action['equity']:+.2f}" in row and f"{action['omniscient_equity']:+.2f}" in row
        assert ("taken" in row) == (action["action"] == decision["action"])
    assert text.index("analysis of") < text.index("position: dp1")


def test_replay_analyze_needs_a_line() -> None:
    result = run("replay", LOG, "--match", MATCH, "--analyze")
    assert result.exit_code == 2 and "FILE:LINE or --at LINE" in result.output
    alone = run("replay", f"{LOG}:54", "--samples", 8)
    assert alone.exit_code == 2 and "give --analyze too" in alone.output
    at = _frames(LOG, "--match", MATCH, "--at", 54, "--analyze", "--samples", 8)[-1]
    assert at["line"] == 54 and at["analysis"]["decision"] is True and at["analysis"]["samples"] == 8


def test_report_of_the_analysis_tables_alone_is_refused_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "analysis"
    analyze_out(out)
    result = run("report", out, "-o", tmp_path / "r.html", "-q")
    assert result.exit_code == 2 and "holds no matches table" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "r.html").exists()


def test_report_analyze_of_standard_input_names_it_and_draws_from_the_copy(tmp_path: Path) -> None:
    text = "".join(line + "\n" for line in LOG.read_text().splitlines() if f'"{MATCH}"' in line)
    result = runner.invoke(app, ["report", "-", "-o", str(tmp_path / "r.html"), "-q", "--analyze"], input=text)
    assert result.exit_code == 0, result.output
    section = _section((tmp_path / "r.html").read_text())
    assert f"<h3>{MATCH} <span class=note>(-, 116 decisions)" in section
    assert "--analyze</code>" not in section  # standard input: no file to name in a command
    moments = section[section.index("<table class=moments>"):]
    rows = moments.count("<tr><td class=num>")
    assert rows >= 5 and moments.count("<div class=board><svg") == rows
