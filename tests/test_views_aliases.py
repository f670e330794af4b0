"""Issue 24 item 3: --alias FILE (or [tool.drawlog] aliases) merges a player's names in every view."""

from __future__ import annotations

import io
import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from drawlog.cli import app
from drawlog.play.recording import record
from drawlog.play.simulate import SimulationOptions, Simulator
from drawlog.tables.aliases import AliasError, alias_map, load_aliases, merged
from drawlog.tables.dataset import write_tables

runner = CliRunner()


def test_the_map_runs_from_each_alias_to_its_canonical_name():
    assert alias_map({"ann": ["Ann", "ann_k"], "bob": "Robert"}) == {"Ann": "ann", "ann_k": "ann", "Robert": "bob"}
    assert alias_map({"ann": ["ann", "Ann"]}) == {"Ann": "ann"}  # a name listed as its own alias is no alias


@pytest.mark.parametrize(("document", "message"), [
    ({"ann": ["x"], "bob": ["x"]}, "'x' is given two canonical names, 'ann' and 'bob'"),
    ({"ann": ["bob"], "bob": ["Robert"]}, "'bob' is a canonical name and also an alias of 'ann'"),
    ({"ann": [1]}, "ann: must be a list of names"),
    (["ann"], "must map each canonical name"),
])
def test_a_name_with_two_canonical_names_is_an_error_naming_the_file(document, message):
    with pytest.raises(AliasError, match=f"^aliases.toml: {message}"):
        alias_map(document, "aliases.toml")


def test_toml_and_json_files(tmp_path: Path):
    (tmp_path / "a.toml").write_text('ann = ["Ann"]\n"bob b" = ["Bob"]\n')
    (tmp_path / "a.json").write_text(json.dumps({"ann": ["Ann"]}))
    assert load_aliases(tmp_path / "a.toml") == {"Ann": "ann", "Bob": "bob b"}
    assert load_aliases(tmp_path / "a.json") == {"Ann": "ann"}
    (tmp_path / "bad.toml").write_text("ann = [\n")
    with pytest.raises(AliasError, match=r"bad\.toml: not valid TOML"):
        load_aliases(tmp_path / "bad.toml")
    with pytest.raises(AliasError, match=r"cannot read the aliases file .*missing\.toml"):
        load_aliases(tmp_path / "missing.toml")


def test_merged_renames_every_name_column():
    tables = {
        "matches": pl.LazyFrame({"player_names": [["Ann", "bob"]], "winner": ["Ann"], "forfeit": [None],
                                 "claimed_winner": ["bob"]}, schema_overrides={"forfeit": pl.String}),
        "rounds": pl.LazyFrame({"opener": ["Ann"], "winner": [None], "claimed_winner": ["Ann"]},
                               schema_overrides={"winner": pl.String}),
        "players": pl.LazyFrame({"player": ["Ann", "bob"]}),
    }
    done = {name: frame.collect() for name, frame in merged(tables, {"Ann": "ann"}).items()}
    assert done["matches"].row(0) == (["ann", "bob"], "ann", None, "bob")
    assert done["rounds"].row(0) == ("ann", None, "ann")
    assert done["players"]["player"].to_list() == ["ann", "bob"]


@pytest.fixture(scope="module")
def two_nights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two nights: ann plays as ``ann`` on the first and as ``Ann`` on the second, with bob and cat."""
    folder = tmp_path_factory.mktemp("aliases")
    for night, roster in ((1, ["ann", "bob", "cat"]), (2, ["Ann", "bob", "cat"])):
        options = SimulationOptions(players=2, bots=("greedy",), roster=roster, match_prefix=f"n{night}-")
        with open(folder / f"night{night}.jsonl", "wb") as stream:
            record(Simulator(night, options), 12, stream, timestamps=True, seed=night)
    write_tables([str(folder / "night1.jsonl"), str(folder / "night2.jsonl")], folder / "stats")
    (folder / "aliases.toml").write_text('ann = ["Ann"]\n')
    return folder


def _csv(*args: str) -> pl.DataFrame:
    result = runner.invoke(app, [*args, "-f", "csv"])
    assert result.exit_code == 0, result.output
    return pl.read_csv(io.StringIO(result.stdout))


@pytest.mark.parametrize("command", [["players"], ["ratings"], ["h2h", "--pairs"], ["ratings", "--history"]])
def test_every_view_merges_the_names(two_nights: Path, command: list[str]):
    stats, aliases = str(two_nights / "stats"), str(two_nights / "aliases.toml")
    apart = _csv(command[0], stats, *command[1:])
    together = _csv(command[0], stats, *command[1:], "--alias", aliases)
    assert {"ann", "Ann"} <= set(apart["player"])
    assert "Ann" not in set(together["player"]) and "ann" in set(together["player"])
    if command == ["players"]:
        count = dict(zip(apart["player"], apart["matches"]))
        assert dict(zip(together["player"], together["matches"]))["ann"] == count["ann"] + count["Ann"]
    if command[0] == "h2h":
        assert "Ann" not in set(together["opponent"])


def test_the_configuration_names_the_aliases_file(two_nights: Path, monkeypatch: pytest.MonkeyPatch):
    (two_nights / "drawlog.toml").write_text('aliases = "aliases.toml"\n')
    elsewhere = two_nights / "sub"
    elsewhere.mkdir(exist_ok=True)
    monkeypatch.chdir(elsewhere)  # the file is found upwards, the aliases file beside it
    try:
        seats = _csv("seats", str(two_nights / "stats"))
        assert seats["matches"].sum() == 24 * 2
        assert "Ann" not in set(_csv("players", str(two_nights / "stats"))["player"])
    finally:
        (two_nights / "drawlog.toml").unlink()


def test_a_bad_aliases_file_exits_2_naming_it(two_nights: Path, tmp_path: Path):
    bad = tmp_path / "clash.json"
    bad.write_text(json.dumps({"ann": ["x"], "bob": ["x"]}))
    result = runner.invoke(app, ["players", str(two_nights / "stats"), "--alias", str(bad)])
    assert result.exit_code == 2
    assert f"{bad}: 'x' is given two canonical names" in result.output
    assert "Traceback" not in result.output


def test_the_report_merges_the_names_too(two_nights: Path, tmp_path: Path):
    pages = {}
    for name, extra in (("apart", []), ("together", ["--alias", str(two_nights / "aliases.toml")])):
        target = tmp_path / f"{name}.html"
        result = runner.invoke(app, ["report", str(two_nights / "stats"), "-o", str(target), "-q", *extra])
        assert result.exit_code == 0, result.output
        pages[name] = target.read_text(encoding="utf-8")
    assert ">Ann<" in pages["apart"]
    assert ">Ann<" not in pages["together"] and ">ann<" in pages["together"]
