"""Issue 25: the README and docs/ say what is true of the repository — files they cite exist, and every shell
example pastes and runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "sample_logs" / "README.md"]

#: Names the README gives to what a command writes (or a user's own file), not files of the repository.
WRITTEN = {"OUTPUT.faults.json", "_drawlog.json", "ci.toml", "drawlog.toml", "report.html", "stats/", "games/",
           "_inputs.json"}


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


# -- every shell example pastes and runs ----------------------------------------------------------------

#: A fenced shell block, with the HTML comment before it if any (``<!-- not run … -->`` leaves the block out).
BLOCK = re.compile(r"(<!--[^\n]*-->\n)?```(?:sh|bash|shell|console)\n(.*?)```", re.S)


def shell_examples() -> tuple[str, list[tuple[str, int, str]]]:
    """The Quick start's first drawlog command, and every other shell example as ``(doc, line, command)``.

    A block after ``<!-- not run … -->`` and a line whose comment says ``not run`` are left out (they need a
    cluster, object storage, or change the user's shell); so are comment lines.
    """
    quick_start = ""
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for block in BLOCK.finditer(text):
            if block.group(1) and "not run" in block.group(1):
                continue
            first = text[:block.start(2)].count("\n") + 1
            lines = block.group(2).splitlines()
            if "pip install" in block.group(2):  # the Quick start: its first command's drawlog part sets the scene
                assert doc.name == "README.md" and not quick_start
                quick_start = lines[0].split("&&", 1)[1].strip()
                continue
            for number, line in enumerate(lines, first):
                command = line.strip()
                if not command or command.startswith("#") or "not run" in command.partition(" # ")[2]:
                    continue
                found.append((str(doc.relative_to(ROOT)), number, command))
    return quick_start, found


def test_the_examples_are_found():
    quick_start, found = shell_examples()
    assert quick_start == "drawlog audit sample_logs/ --out stats/ --exit-zero"
    commands = [command for _, _, command in found]
    assert len(commands) > 50 and any(command.startswith("drawlog query") for command in commands)
    assert not any(command.startswith("drawlog --install-completion") for command in commands)
    assert not any("s3://" in command for command in commands)


def _readme_toml() -> str:
    return DOCS[0].read_text(encoding="utf-8").split("```toml\n", 1)[1].split("```", 1)[0]


def test_every_shell_example_runs(tmp_path: Path):
    """In a scratch folder holding what the README ships (``sample_logs/``) and makes (the Quick start's audit,
    ``ci.toml`` pasted from the configuration block), every example runs, in order, as pasted: exit 0, or 1 for a
    ``validate`` or ``audit`` that finds the sample's errors."""
    import os
    import shlex
    import shutil
    import subprocess
    import sys

    quick_start, found = shell_examples()
    scratch = tmp_path / "scratch"
    shutil.copytree(ROOT / "sample_logs", scratch / "sample_logs")
    (scratch / "ci.toml").write_text(_readme_toml(), encoding="utf-8")
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "drawlog").write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m drawlog "$@"\n')
    (tools / "drawlog").chmod(0o755)
    (tools / "python").symlink_to(sys.executable)
    env = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ.get('PATH', '')}", "COLUMNS": "120",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])),
           "DRAWLOG_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("FORCE_COLOR", None)

    def run(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-c", command], cwd=scratch, env=env, capture_output=True, text=True,
                              timeout=300, stdin=subprocess.DEVNULL)

    done = run(quick_start)
    assert done.returncode == 0, done.stderr
    failed = []
    for doc, number, command in found:
        done = run(command)
        finding = re.match(r"(python -m )?drawlog (validate|audit)\b", command) is not None
        if done.returncode not in ((0, 1) if finding else (0,)):
            failed.append(f"{doc}:{number}: exit {done.returncode}: {command}\n{done.stderr.strip()[-500:]}")
    assert failed == [], "\n\n".join(failed)
