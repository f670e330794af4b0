"""Issue 25: every column of every table drawlog writes is named in the README's table docs.

The columns are read from the Parquet files ``stats`` and ``analyze --out`` write for the sample
logs; the docs from the README: the statistics table (``| `matches` | match | `match`, … |``), the
sentences "Every table has …" and "`rounds` also has …", and the bullets of analyze's **Tables**.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow.dataset as ds
import pytest
from typer.testing import CliRunner

from drawlog.cli import app
from drawlog.tables.dataset import write_tables
from drawlog.tables.stats import TABLES

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"
README = (ROOT / "README.md").read_text(encoding="utf-8")
ANALYSIS_TABLES = ("decisions", "analysis_players", "luck")


def _names(text: str) -> set[str]:
    """The backquoted names in ``text`` (`match`, `claimed_*` is no name)."""
    return set(re.findall(r"`([a-z][a-z0-9_]*)`", text))


def _section(start: str, end: str) -> str:
    return README.split(start, 1)[1].split(end, 1)[0]


def _statistics_docs() -> dict[str, set[str]]:
    """The columns the Statistics section names, per table."""
    section = _section("## Statistics: tables, SQL, leaderboard, ratings", "\n## ")
    rows = dict(re.findall(r"^\| `([a-z_]+)` \| [^|]+ \| (.+) \|$", section, flags=re.MULTILINE))
    every = set().union(*(_names(text) for text in re.findall(r"Every table has (.+?)\.\s", section, flags=re.DOTALL)))
    documented = {}
    for table, cell in rows.items():
        more = re.findall(rf"^`{table}` also has (.+?)\.\n", section, flags=re.MULTILINE | re.DOTALL)
        documented[table] = _names(cell) | every | set().union(*map(_names, more))
    return documented


def _analysis_docs() -> dict[str, set[str]]:
    """The columns analyze's **Tables** bullets name, per table."""
    after = README.split("**Tables** (`--out DIR`", 1)[1]
    section = after[after.index("\n- `") + 1:].split("\n\n")[0]  # (the bullets under the heading)
    bullets = re.findall(r"^- `([a-z_]+)`: (.+?)(?=^- |\Z)", section, flags=re.MULTILINE | re.DOTALL)
    return {table: _names(text) for table, text in bullets}


def _columns(folder: Path) -> set[str]:
    return set(ds.dataset(folder, format="parquet", partitioning="hive").schema.names)


@pytest.fixture(scope="module")
def stats(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("documented") / "stats"
    write_tables([str(SAMPLES)], out)
    return out


@pytest.fixture(scope="module")
def analysis(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("documented") / "analysis"
    result = CliRunner().invoke(app, ["analyze", str(SAMPLES / "all-fives.jsonl"), str(SAMPLES / "tournament-2p.jsonl"),
                                      "--samples", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_the_readme_documents_every_stats_table():
    assert set(_statistics_docs()) == set(TABLES)


@pytest.mark.parametrize("table", TABLES)
def test_every_stats_column_is_documented(stats: Path, table: str):
    written = _columns(stats / table)
    assert len(written) > 5
    missing = written - _statistics_docs()[table]
    assert not missing, f"README's Statistics does not name {table}.{', '.join(sorted(missing))}"


def test_the_readme_documents_every_analysis_table():
    assert set(_analysis_docs()) == set(ANALYSIS_TABLES)


@pytest.mark.parametrize("table", ANALYSIS_TABLES)
def test_every_analysis_column_is_documented(analysis: Path, table: str):
    written = _columns(analysis / table)
    assert len(written) > 5
    missing = written - _analysis_docs()[table]
    assert not missing, f"README's analyze Tables does not name {table}.{', '.join(sorted(missing))}"


def test_a_column_left_out_of_the_docs_is_found(stats: Path):
    """The check bites: the docs less one column's name miss that column."""
    docs = _statistics_docs()["rounds"]
    assert "has_round_end" in docs and "shuffle_suits_p" in docs and "path" in docs
    assert "has_round_end" in _columns(stats / "rounds") - (docs - {"has_round_end"})
