"""Issue 25, a linter's manners, second pass: what a new user still trips over."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from drawlog.cli import app
from drawlog.tables.dataset import write_tables

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"
runner = CliRunner()


@pytest.fixture(scope="module")
def stats(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("second") / "stats"
    write_tables([str(SAMPLES)], out)
    return out


# -- text tables to a pipe or a file: keys never cut ------------------------------------------------

WIDE = ("SELECT match, path, concat(path, '#', match) AS key, file, tournament, table_name FROM matches "
        "ORDER BY match")


def _ids(stats: Path) -> list[str]:
    import polars as pl

    return pl.read_parquet(stats / "matches.parquet").sort("match")["match"].to_list()


def test_query_through_a_pipe_cuts_no_key(stats: Path):
    result = runner.invoke(app, ["query", str(stats), WIDE])
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    for match in _ids(stats):
        assert f"#{match} " in result.output


@pytest.mark.parametrize("name", ["x.txt", "x.TXT"])
def test_query_to_a_text_file_cuts_no_key(stats: Path, tmp_path: Path, name: str):
    target = tmp_path / name
    result = runner.invoke(app, ["query", str(stats), WIDE, "-o", str(target)])
    assert result.exit_code == 0, result.output
    text = target.read_text(encoding="utf-8")
    assert "…" not in text
    lines = text.splitlines()
    assert len({len(line) for line in lines}) == 1, "one table, each line as wide"
    for match in _ids(stats):
        assert f"#{match} " in text


def test_audit_through_a_pipe_cuts_no_file_name(tmp_path: Path):
    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / "every-violation.jsonl"
    deep.parent.mkdir()
    deep.write_bytes((SAMPLES / "every-violation.jsonl").read_bytes())
    result = runner.invoke(app, ["audit", str(deep), "--out", str(tmp_path / "stats"), "--exit-zero"])
    assert result.exit_code == 0, result.output
    assert "…" not in result.output and str(deep) in result.output


# -- -o with an extension no format has --------------------------------------------------------------

@pytest.mark.parametrize("command", [["query", "SELECT * FROM rounds"], ["players"], ["ratings"]])
@pytest.mark.parametrize("name", ["board.xlsx", "board"])
def test_an_unknown_output_extension_is_an_error_listing_the_known_ones(stats: Path, tmp_path: Path,
                                                                      command: list[str], name: str):
    target = tmp_path / name
    result = runner.invoke(app, [command[0], str(stats), *command[1:], "-o", str(target)])
    assert result.exit_code == 2
    assert result.output == (f"Error: cannot tell the format of {target} from its extension: use one of .csv, "
                             f".json, .jsonl, .parquet, .txt (or name the format with --format)\n")
    assert not target.exists()


def test_an_unknown_extension_with_format_named_is_written(stats: Path, tmp_path: Path):
    target = tmp_path / "board.xlsx"
    assert runner.invoke(app, ["players", str(stats), "-f", "csv", "-o", str(target)]).exit_code == 0
    assert target.read_text(encoding="utf-8").startswith("player,")
