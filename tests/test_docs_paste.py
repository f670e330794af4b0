"""Issue 25: the README and docs/ say what is true of the repository — files they cite exist, and every shell
example pastes and runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "sample_logs" / "README.md"]

#: Names the README gives to what a command writes (or a user's own file), not files of the repository.
WRITTEN = {"OUTPUT.faults.json", "_drawlog.json", "ci.toml", "drawlog.toml", "report.html", "stats/", "games/"}


def _cited(text: str) -> set[str]:
    """Markdown link targets, and paths in backticks that name a file (.md, .py, .json …) or a folder (``x/``)."""
    links = set(re.findall(r"\]\(([^)#\s]+)", text))
    ticked = {word for word in re.findall(r"`([^`\s]+)`", text)
              if re.search(r"\.(md|py|json|jsonl|toml|html|yaml|yml)$", word) or word.endswith("/")}
    return {path for path in links | ticked
            if not re.fullmatch(r"(\.\w+)+", path) and "://" not in path and ":\\/\\/" not in path and "*" not in path}


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: str(doc.relative_to(ROOT)))
def test_every_file_a_doc_cites_is_in_the_repository(doc: Path):
    missing = [path for path in sorted(_cited(doc.read_text(encoding="utf-8")))
               if path not in WRITTEN and path != "&#58;//"
               and not any((base / path).exists() for base in (doc.parent, ROOT, ROOT / "src" / "drawlog"))]
    assert missing == []
