"""``drawlog arena``: misbehaving bots forfeit as documented, logs validate with exactly the codes expected, no
process is left behind; resuming, duplicate deals, bots by the protocol play as in process, the example bots."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from drawlog.cli import app
from drawlog.play.arena import Arena, ArenaSettings, Entrant, Result, SettingsChanged

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
EXAMPLES = ROOT / "examples" / "bots"
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}


#: Each misbehaving bot and the forfeit it must get.
MISBEHAVING = {
    "crash_at_start": "crash",
    "crash_mid_match": "crash",
    "hangs": "timeout",
    "garbage": "protocol",
    "illegal_move": "illegal-move",
    "out_of_turn": "protocol",
    "megabytes": "protocol",
    "closes_stdout": "protocol",
    "ignores_sigterm": "timeout",
}


def _validate(paths: list[Path]) -> dict:
    done = subprocess.run([sys.executable, "-m", "drawlog", "validate", *map(str, paths), "--format", "json"],
                          capture_output=True, env=ENV, check=False)
    return json.loads(done.stdout)


def _results(logdir: Path) -> list[Result]:
    return [msgspec.json.decode(line, type=Result) for line in (logdir / "results.jsonl").read_bytes().splitlines()]


def _children() -> list[tuple[int, str]]:
    """Processes whose parent is this one (zombies included), and any test bot still running, unless it belongs to
    another pytest-xdist worker (an arena that another worker runs at the same time): a bot descending from this
    process, or orphaned (its parent gone), is this test's."""
    processes: dict[int, tuple[int, str, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        processes[int(entry.name)] = (int(fields[1]), fields[0], command)
    found = []
    for pid, (parent, state, command) in processes.items():
        if "multiprocessing.resource_tracker" in command:  # (started by an earlier test's process pool, not a bot)
            continue
        if parent == os.getpid() or (str(BOTS) in command and not _another_workers(pid, processes)):
            found.append((pid, f"{state} {command}"))
    return found


def _another_workers(pid: int, processes: dict[int, tuple[int, str, str]]) -> bool:
    """Whether process ``pid`` descends from another pytest-xdist worker: a process other than this one started
    by the very command line that started this one (execnet starts every worker alike)."""
    me = os.getpid()
    mine = processes.get(me, (0, "", ""))[2]
    seen = set()
    while pid in processes and pid not in seen:
        seen.add(pid)
        pid = processes[pid][0]
        if pid == me:
            return False
        if pid in processes and processes[pid][2] == mine:
            return True
    return False


def _program(script: Path) -> tuple[str, ...]:
    return (sys.executable, str(script))


def test_misbehaving_bots_forfeit_as_documented_and_leave_nothing_behind(tmp_path):
    entrants = [Entrant("greedy", builtin="greedy")] + [Entrant(name, _program(BOTS / f"{name}.py"))
                                                        for name in MISBEHAVING]
    settings = ArenaSettings(entrants, tmp_path / "arena", matches=2, gauntlet="greedy", time_per_move_ms=300)
    contest = Arena(settings)
    contest.run()
    results = _results(tmp_path / "arena")
    assert len(results) == 2 * len(MISBEHAVING)  # the arena carried on after every forfeit
    for result in results:
        bad = next(bot for bot in result.bots if bot != "greedy")
        assert result.forfeit == result.bots.index(bad), result
        assert result.reason == MISBEHAVING[bad], result
        assert result.winner == result.bots.index("greedy")
    details = {result.bots[result.forfeit]: result.detail for result in results}  # type: ignore[index]
    assert details["hangs"] == "did not answer its turn within 300 ms"
    assert details["megabytes"] == "wrote a line longer than 65,536 bytes"
    assert details["out_of_turn"] == "wrote more than one line for its turn"
    assert details["closes_stdout"] == "closed its output while still running"
    assert details["crash_at_start"] == "closed its output before answering hello: the program ended (exit status 3)"
    assert details["crash_mid_match"] == "closed its output: the program ended (exit status 1)"
    assert details["garbage"].startswith("wrote JSON is malformed")
    assert _children() == []
    # the logs validate, with exactly the illegal moves' codes
    report = _validate(sorted((tmp_path / "arena").glob("*-vs-*.jsonl")))
    expected = sorted((result.match, code) for result in results for code in result.codes)
    assert sorted((found["match"], found["code"]) for found in report["violations"]) == expected
    assert [code for match, code in expected if "illegal_move" in match][:1] == ["M202"]
    assert report["summary"]["complete_matches"] == len(results)
    assert (tmp_path / "arena" / "bots" / "crash_mid_match.stderr").read_text().count("crashing on purpose") == 2


def test_a_bot_program_that_cannot_start_forfeits_its_matches(tmp_path):
    entrants = [Entrant("greedy", builtin="greedy"), Entrant("ghost", ("/nonexistent/bot",))]
    contest = Arena(ArenaSettings(entrants, tmp_path, matches=2))
    contest.run()
    assert [(result.reason, result.detail) for result in contest.results] == \
        [("crash", "cannot start /nonexistent/bot: No such file or directory")] * 2
    assert _validate([tmp_path / "greedy-vs-ghost.jsonl"])["summary"]["errors"] == 0


@pytest.mark.parametrize("variant", ["draw", "all-fives"])
def test_built_in_bots_play_by_the_protocol_exactly_as_in_process(tmp_path, variant):
    def run(entrant: Entrant, where: Path) -> bytes:
        Arena(ArenaSettings([entrant, Entrant("r", builtin="random")], where, matches=4, variant=variant)).run()
        return (where / "t-vs-r.jsonl").read_bytes()

    in_process = run(Entrant("t", builtin="tactician"), tmp_path / "a")
    by_protocol = run(Entrant("t", (sys.executable, "-m", "drawlog.bots", "tactician")), tmp_path / "b")
    assert by_protocol == in_process
    assert in_process.count(b'"match_end"') == 4


def test_resuming_keeps_finished_matches_and_replays_the_rest(tmp_path):
    entrants = [Entrant(name, builtin=name) for name in ("random", "greedy", "tactician")]
    whole = tmp_path / "whole"
    Arena(ArenaSettings(entrants, whole, matches=6)).run()
    cut = tmp_path / "cut"
    shutil.copytree(whole, cut)
    log = cut / "random-vs-greedy.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-5]) + lines[-5][:20])  # a match cut short, mid-line
    listing = cut / "results.jsonl"
    results = listing.read_bytes().splitlines(keepends=True)
    dropped = [line for line in results if b"random-vs-greedy-d00003-r2" in line]
    listing.write_bytes(b"".join(line for line in results if line not in dropped) + b'{"match": "rand')
    resumed = Arena(ArenaSettings(entrants, cut, matches=6))
    resumed.run()
    assert resumed.kept == 17
    assert resumed.standings.matches == 18
    for name in ("random-vs-greedy.jsonl", "random-vs-tactician.jsonl", "greedy-vs-tactician.jsonl"):
        assert (cut / name).read_bytes() == (whole / name).read_bytes()
    assert sorted(_results(cut), key=lambda r: r.match) == sorted(_results(whole), key=lambda r: r.match)
    with pytest.raises(SettingsChanged, match="seed"):
        Arena(ArenaSettings(entrants, cut, matches=6, seed=1)).prepare()


def test_duplicate_matches_deal_the_same_tiles_to_each_seat_in_turn(tmp_path):
    entrants = [Entrant("greedy", builtin="greedy"), Entrant("random", builtin="random")]
    Arena(ArenaSettings(entrants, tmp_path, matches=3)).run()  # rounded up to 2 deals × 2 rotations
    deals = [json.loads(line) for line in (tmp_path / "greedy-vs-random.jsonl").read_text().splitlines()
             if '"round":1,"opener"' in line]
    assert [deal["match"] for deal in deals] == [f"greedy-vs-random-d0000{d}-r{r}" for d in (1, 2) for r in (1, 2)]
    for first, second in ((deals[0], deals[1]), (deals[2], deals[3])):
        assert first["hands"]["greedy"] == second["hands"]["random"]
        assert first["hands"]["random"] == second["hands"]["greedy"]
        assert first["stock"] == second["stock"]
        assert first["opener"] != second["opener"]  # the same seat opens: now the other bot sits there


def test_a_stop_condition_ends_the_run_and_a_rerun_finishes_it(tmp_path):
    entrants = [Entrant("greedy", builtin="greedy"), Entrant("random", builtin="random")]
    contest = Arena(ArenaSettings(entrants, tmp_path, matches=10))
    contest.run(stop=lambda standings: "decided" if standings.matches >= 4 else None)
    assert contest.stopped == "decided" and contest.standings.matches == 4
    again = Arena(ArenaSettings(entrants, tmp_path, matches=10))
    again.run()
    assert again.kept == 4 and again.standings.matches == 10


def test_parallel_workers_play_the_same_matches(tmp_path):
    entrants = [Entrant("greedy", builtin="greedy"), Entrant("random", builtin="random"),
                Entrant("g2", (sys.executable, "-m", "drawlog.bots", "greedy"))]
    Arena(ArenaSettings(entrants, tmp_path / "one", matches=4)).run()
    Arena(ArenaSettings(entrants, tmp_path / "two", matches=4, jobs=2)).run()
    key = lambda result: result.match
    assert sorted(_results(tmp_path / "one"), key=key) == sorted(_results(tmp_path / "two"), key=key)
    assert _children() == []


@pytest.mark.parametrize("command", [(sys.executable, str(EXAMPLES / "simple_bot.py")),
                                     ("node", str(EXAMPLES / "simple_bot.js"))], ids=["python", "node"])
@pytest.mark.parametrize("variant", ["draw", "all-fives"])
def test_the_example_bots_play_clean_matches_against_the_built_ins(tmp_path, command, variant):
    if shutil.which(command[0]) is None:
        pytest.skip(f"{command[0]} is not installed")
    entrants = [Entrant("example", command)] + [Entrant(name, builtin=name) for name in ("random", "greedy")]
    contest = Arena(ArenaSettings(entrants, tmp_path, matches=4, variant=variant, gauntlet="example"))
    contest.run()
    assert [result.reason for result in contest.results] == [None] * 8
    report = _validate(sorted(tmp_path.glob("*-vs-*.jsonl")))
    assert report["summary"]["errors"] == 0 and report["summary"]["complete_matches"] == 8
    assert "players" in (tmp_path / "bots" / "example.stderr").read_text()


def test_the_command_line(tmp_path):
    runner = CliRunner()
    out = tmp_path / "stats.json"
    done = runner.invoke(app, ["arena", "--builtin", "greedy", "--builtin", "random", "-n", "4", "-o",
                               str(tmp_path / "logs"), "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert "4 matches played" in done.output and "greedy" in done.output
    stats = json.loads(out.read_text())
    assert [row["bot"] for row in stats["bots"]] == ["greedy", "random"]
    assert stats["bots"][0]["matches"] == 4 and stats["settings"]["matches"] == 4
    again = runner.invoke(app, ["arena", "--builtin", "greedy", "--builtin", "random", "-n", "4", "-o",
                                str(tmp_path / "logs"), "--variant", "all-fives"])
    assert again.exit_code == 2 and "other settings (variant differ)" in again.output
    for args, words in [(["--builtin", "grumpy", "--builtin", "random"], "unknown built-in bot 'grumpy'"),
                        (["--builtin", "greedy"], "2-player tables need at least 2 bots; 1 given"),
                        (["--builtin", "greedy", "--bot", "x"], "'x': give NAME=COMMAND"),
                        (["--builtin", "greedy", "--bot", "a-b=prog"], "bot name 'a-b'"),
                        (["--builtin", "greedy", "--builtin", "random", "--gauntlet", "zed"], "'zed' is not one"),
                        (["--builtin", "greedy", "--builtin", "random", "--rules", "reserve=30"], "--rules")]:
        done = runner.invoke(app, ["arena", *args, "-o", str(tmp_path / "other")])
        assert done.exit_code == 2 and words in done.output, (args, done.output)



def test_standings_read_each_match_as_games_between_pairs():
    from drawlog.play.standings import Standings, elo

    standings = Standings(["a", "b", "c"])
    standings.add(("a", "b", "c"), (70, 20, 20), 0, None, "1")  # a wins; b and c tie on 20
    standings.add(("c", "a", "b"), (10, 45, 40), 1, 0, "1", "timeout")  # c forfeits; a has the highest score
    assert standings.record("a", "b") == (2, 0, 0)
    assert standings.record("b", "c") == (1, 1, 0)
    assert standings.record("c", "a") == (0, 0, 2)
    assert standings.lines["c"].forfeits == {"timeout": 1}
    assert standings.share("a") == (1.0, float("inf"))  # one unit: no interval yet
    assert round(elo(0.75)) == 191 and elo(0.5) == 0.0
    standings.add(("a", "b", "c"), (0, 80, 10), 1, None, "2")
    share, error = standings.share("a")
    assert share == 4 / 6 and error > 0
    rating, low, high = standings.rating("a")
    assert low < rating < high


def test_three_player_tables_log_valid_matches_and_progress_lines(tmp_path):
    done = CliRunner().invoke(app, ["arena", "--builtin", "random", "--builtin", "greedy", "--builtin", "tactician",
                                    "--players", "3", "-n", "3", "--variant", "all-fives", "-o", str(tmp_path)])
    assert done.exit_code == 0, done.output
    assert "3/3 matches; leading: " in done.output and "3 matches played" in done.output
    report = _validate([tmp_path / "random-vs-greedy-vs-tactician.jsonl"])
    assert report["summary"]["errors"] == 0 and report["summary"]["complete_matches"] == 3
