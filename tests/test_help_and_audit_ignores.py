"""Issue 11 leftovers: every ``--help`` names its values plainly, and ``per-file-ignores`` applies in ``audit``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from drawlog.cli import app
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events

ENV = {"COLUMNS": "200", "NO_COLOR": "1", "FORCE_COLOR": None}
runner = CliRunner()

#: What typer and click print for a value left unnamed: its type (``<int range>``, ``INTEGER``, ``TEXT``, ``list[str]``).
UNNAMED = re.compile(r"<(?i:int|str|float|bool|path|list|file|text)\b[^>|]*>|\b(?:INTEGER|TEXT|FLOAT|BOOLEAN)\b|"
                     r"\bRANGE\b|\brange>|list\[")
#: A value's name as it should be: N, FILE, DIR, KEY=N… (repeatable: ``CODES...``), or its choices ``<a|b|c>``.
NAMED = re.compile(r"[A-Z][A-Z0-9_=,]*(?:\.\.\.)?|<?[\w-]+(?:\|[\w-]+)+>?")


def option_values(text: str) -> list[tuple[str, str]]:
    """``(option line, value name)`` of each option of a help page that takes a value."""
    found = []
    options = text.split("\nOptions:\n", 1)[-1]
    for line in options.splitlines():
        if re.match(r"\s+-{1,2}\w", line) is None:
            continue
        head = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        value = " ".join(token for token in head.split() if not token.startswith("-") and token != "/")
        if value:
            found.append((line, value))
    return found


def cli(*args: object):
    result = runner.invoke(app, [str(arg) for arg in args], env=ENV)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def command_names() -> list[str]:
    return [command.name or command.callback.__name__.replace("_", "-") for command in app.registered_commands]


@pytest.mark.parametrize("name", ["", *command_names()])
def test_every_help_names_its_values(name: str) -> None:
    result = cli(*([name] if name else []), "--help")
    assert result.exit_code == 0, result.output
    assert UNNAMED.search(result.stdout) is None, (name, UNNAMED.search(result.stdout), result.stdout)
    for line, value in option_values(result.stdout):
        assert NAMED.fullmatch(value), (name, line)


def test_the_commands_are_all_checked() -> None:
    assert {"validate", "stats", "audit", "simulate", "players", "ratings", "query", "filter", "replay"} \
        <= set(command_names())


def faulty_log(path: Path, match_id: str, seed: int) -> Path:
    """A match with W401 on its first line and its first play turned into a pass (M207, M208)."""
    lines = [json.loads(line) for line in encode_events(Simulator(seed, SimulationOptions()).match(match_id))]
    lines[0]["colour"] = "red"
    index = next(i for i, event in enumerate(lines) if event["type"] == "play")
    lines[index] = {"type": "pass", "match": match_id, "player": lines[index]["player"]}
    path.write_text("".join(json.dumps(event) + "\n" for event in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_per_file_ignores_apply_in_audit_as_in_validate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        jobs: str) -> None:
    monkeypatch.chdir(tmp_path)
    faulty_log(tmp_path / "bad.jsonl", "b1", 2)
    faulty_log(tmp_path / "other.jsonl", "o1", 3)
    everything = {(v["file"], v["code"]) for v in json.loads(cli("validate", ".", "-f", "json").stdout)["violations"]}
    assert {code for file, code in everything if file.endswith("bad.jsonl")} >= {"W401", "M207", "M208"}
    (tmp_path / "drawlog.toml").write_text('[per-file-ignores]\n"bad.*" = ["W401", "M208"]\n')
    document = json.loads(cli("validate", ".", "-f", "json").stdout)
    expected = [(v["file"], v["line"], v["code"]) for v in document["violations"]]
    assert ("bad.jsonl", "W401") not in {(Path(file).name, code) for file, _, code in expected}
    assert ("other.jsonl", "W401") in {(Path(file).name, code) for file, _, code in expected}

    result = cli("audit", ".", "--out", "tables", "-q", "--jobs", jobs)
    assert result.exit_code == 1, result.output
    table = pl.read_parquet(tmp_path / "tables" / "violations" / "part-00000.parquet")
    assert list(zip(table["file"].to_list(), table["line"].to_list(), table["code"].to_list())) == expected
    assert f"{document['summary']['errors']} errors, {document['summary']['warnings']} warning" in result.stdout
    assert cli("audit", ".", "--out", "tables", "-q", "--isolated").stdout.count("warning") >= 1
    isolated = pl.read_parquet(tmp_path / "tables" / "violations" / "part-00000.parquet")
    assert {(Path(f).name, c) for f, c in zip(isolated["file"].to_list(), isolated["code"].to_list())} \
        >= {("bad.jsonl", "W401"), ("bad.jsonl", "M208")}
