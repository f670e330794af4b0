"""``drawlog arena --sprt``: the sequential test stops the run once it decides, and says which way."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from drawlog.cli import app
from drawlog.play.sprt import Sprt

runner = CliRunner()


def arena(tmp_path: Path, *args: str) -> tuple[int, str, dict]:
    out = tmp_path / "standings.json"
    result = runner.invoke(app, ["arena", "-o", str(tmp_path / "logs"), "--out", str(out), "-q", *args])
    return result.exit_code, result.output, json.loads(out.read_text()) if out.exists() else {}


def test_a_stronger_bot_is_found_stronger_and_the_run_stops_there(tmp_path: Path) -> None:
    status, output, document = arena(tmp_path, "--builtin", "greedy", "--builtin", "random", "--matches", "1000",
                                     "--sprt", "0,50")
    assert status == 0, output
    test = document["sprt"]
    assert test["decision"] == "H1" and document["stopped"] == "SPRT accepted H1"
    played = test["wins"] + test["draws"] + test["losses"]
    assert played == document["matches"] < 1000
    # the ratio is the module's, on the counts played, and the run stopped at the first deal that decided it
    expected = Sprt(0, 50)
    assert expected.update(test["wins"], test["draws"], test["losses"]) == "H1"
    assert abs(expected.llr - test["llr"]) < 1e-9 and test["llr"] >= test["bounds"][1]
    assert "SPRT accepted H1: greedy is at least 50 Elo stronger" in output


def test_a_bot_against_itself_is_found_no_stronger(tmp_path: Path) -> None:
    status, output, document = arena(tmp_path, "--builtin", "greedy", "--builtin", "twin=greedy", "--matches",
                                     "3000", "--sprt", "0,50", "--seed", "3")
    assert status == 0, output
    assert document["sprt"]["decision"] == "H0" and document["sprt"]["llr"] <= document["sprt"]["bounds"][0]
    assert "SPRT accepted H0: greedy is no more than 0 Elo stronger" in output


def test_an_undecided_test_says_so(tmp_path: Path) -> None:
    status, output, document = arena(tmp_path, "--builtin", "greedy", "--builtin", "twin=greedy", "--matches", "4",
                                     "--sprt", "0,50")
    assert status == 0 and document["sprt"]["decision"] is None and document["stopped"] is None
    assert "SPRT undecided" in output


def test_what_the_test_cannot_take(tmp_path: Path) -> None:
    for args, words in ((["--builtin", "greedy", "--builtin", "random", "--builtin", "tactician"], "two bots"),
                        (["--builtin", "greedy", "--builtin", "random", "--sprt", "50,0"], "elo0 must be below"),
                        (["--builtin", "greedy", "--builtin", "random", "--sprt", "fifty"], "give ELO0,ELO1"),
                        (["--builtin", "greedy", "--builtin", "random", "--sprt", "0,50", "--alpha", "1.5"],
                         "alpha and beta")):
        result = runner.invoke(app, ["arena", "-o", str(tmp_path / "x"), *args, *([] if "--sprt" in args else
                                                                                  ["--sprt", "0,50"])])
        assert result.exit_code == 2 and words in result.output, result.output
