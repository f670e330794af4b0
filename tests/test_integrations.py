"""The pre-commit hook (.pre-commit-hooks.yaml) and the GitHub Action (action.yml), run as their documentation says.

pre-commit's own loader checks the hook's manifest; the hook is then run the way pre-commit runs it (its entry,
then the staged files its ``files`` pattern selects). The composite action's steps are run by a small runner that
does what GitHub's does for ``shell: bash`` (``bash --noprofile --norc -eo pipefail``, ``${{ … }}`` expressions
substituted, ``$GITHUB_PATH`` read back), with the install step's ``python3`` recorded instead of run.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml
from pre_commit.clientlib import load_manifest

ROOT = Path(__file__).resolve().parents[1]
BIN = str(Path(sys.executable).parent)


def _hook() -> dict:
    hooks = load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))  # raises on a manifest pre-commit refuses
    assert [hook["id"] for hook in hooks] == ["drawlog-validate"]
    return hooks[0]


def _run_hook(hook: dict, files: list[str]) -> subprocess.CompletedProcess[str]:
    selected = [name for name in files if re.search(hook["files"], name)]
    command = shlex.split(hook["entry"]) + list(hook["args"]) + selected
    return subprocess.run(command, check=False, cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PATH": BIN + os.pathsep + os.environ["PATH"]})


def test_pre_commit_hook_selects_logs_only_and_passes_a_clean_log() -> None:
    hook = _hook()
    assert hook["language"] == "python" and hook["pass_filenames"] and hook["require_serial"]
    names = ["sample_logs/tournament-2p.jsonl", "sample_logs/archive.jsonl.gz", "README.md", "notes.json"]
    assert [name for name in names if re.search(hook["files"], name)] == names[:2]
    result = _run_hook(hook, names)
    assert result.returncode == 0, result.stdout + result.stderr


def test_pre_commit_hook_fails_a_commit_with_an_illegal_move_naming_file_and_line() -> None:
    result = _run_hook(_hook(), ["sample_logs/every-violation.jsonl"])
    assert result.returncode == 1
    first = result.stdout.splitlines()[0]
    assert first.startswith("sample_logs/every-violation.jsonl:19:") and " F001 " in first


def _action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text())


def _expand(text: str, inputs: dict[str, str]) -> str:
    def value(found: re.Match[str]) -> str:
        expression = found.group(1).strip()
        if expression == "github.action_path":
            return str(ROOT)
        assert expression.startswith("inputs."), expression
        return inputs[expression.removeprefix("inputs.")]

    return re.sub(r"\$\{\{(.*?)\}\}", value, text)


def _run_action(tmp_path: Path, given: dict[str, str], path: str) -> tuple[int, str, list[str]]:
    """Run the action's steps; returns the last step's exit status, its output, and the lines of $GITHUB_PATH."""
    action = _action()
    assert action["runs"]["using"] == "composite"
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()} | given
    github_path = tmp_path / "github_path"
    github_path.write_text("")
    status, output = 0, ""
    for step in action["runs"]["steps"]:
        condition = step.get("if")
        if condition is not None:
            left, right = (part.strip() for part in condition.split("=="))
            if _expand("${{ " + left + " }}", inputs) != right.strip("'"):
                continue
        assert step["shell"] == "bash"
        added = github_path.read_text().splitlines()[::-1]  # a runner puts each later line first on PATH
        env = {**os.environ, "PATH": os.pathsep.join([*added, path]), "RUNNER_TEMP": str(tmp_path), "GITHUB_PATH": str(github_path)}
        env |= {name: _expand(str(value), inputs) for name, value in step.get("env", {}).items()}
        assert "${{" not in step["run"], "inputs reach the script through the environment only"
        result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], check=False,
                                cwd=ROOT,
                                env=env, capture_output=True, text=True)
        status, output = result.returncode, result.stdout + result.stderr
        if status:
            break
    return status, output, github_path.read_text().splitlines()


def test_action_annotates_each_violation_and_fails(tmp_path: Path) -> None:
    status, output, _ = _run_action(tmp_path, {"paths": "sample_logs/every-violation.jsonl", "install": "false",
                                               "args": "--select F001,M205"},
                                    BIN + os.pathsep + os.environ["PATH"])
    assert status == 1
    annotations = [line for line in output.splitlines() if line.startswith("::")]
    assert annotations and all(line.startswith("::error file=sample_logs/every-violation.jsonl,line=")
                               for line in annotations)
    assert {re.search(r"title=(\w+)", line).group(1) for line in annotations} == {"F001", "M205"}  # type: ignore[union-attr]


def test_action_passes_a_clean_log(tmp_path: Path) -> None:
    status, output, _ = _run_action(tmp_path, {"paths": "sample_logs/tournament-2p.jsonl", "install": "false"},
                                    BIN + os.pathsep + os.environ["PATH"])
    assert status == 0, output
    assert "::error" not in output


def test_action_installs_drawlog_from_its_own_checkout_into_a_venv(tmp_path: Path) -> None:
    """The install step, with ``python3`` recorded: a venv in $RUNNER_TEMP, pip install of the action's folder."""
    fake = tmp_path / "bin"
    fake.mkdir()
    record = tmp_path / "calls"
    script = f'#!/bin/sh\necho "$0 $*" >> {record}\n'
    (fake / "python3").write_text(script)
    (fake / "python3").chmod(0o755)
    venv_python = tmp_path / "drawlog-venv" / "bin" / "python"
    venv_python.parent.mkdir(parents=True)
    venv_python.write_text(script)
    venv_python.chmod(0o755)
    drawlog = venv_python.parent / "drawlog"
    drawlog.write_text("#!/bin/sh\necho \"drawlog $*\"\n")
    drawlog.chmod(0o755)
    status, output, github_path = _run_action(tmp_path, {"paths": "a.jsonl b.jsonl"},
                                              f"{fake}{os.pathsep}/usr/bin{os.pathsep}/bin")
    calls = record.read_text().splitlines()
    assert calls[0].endswith(f"python3 -m venv {tmp_path}/drawlog-venv")
    assert calls[1] == f"{venv_python} -m pip install --quiet {ROOT}"
    assert github_path == [str(venv_python.parent)]
    # the validate step found the venv's drawlog through $GITHUB_PATH; the inputs split into words
    assert status == 0 and output.strip() == "drawlog validate a.jsonl b.jsonl --format github"
