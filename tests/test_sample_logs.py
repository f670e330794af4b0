"""sample_logs/ is current with its generator, and each file shows what its README says."""

from __future__ import annotations

import gzip
import importlib.util
from pathlib import Path

from drawlog.check.rules import RULES
from drawlog.check.validator import validate_paths

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"


def _generator():
    spec = importlib.util.spec_from_file_location("make_sample_logs", ROOT / "scripts" / "make_sample_logs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _text(name: str, content: bytes) -> bytes:
    return gzip.decompress(content) if name.endswith(".gz") else content


def test_sample_logs_are_current():
    built = _generator().build()
    on_disk = {path.name for path in SAMPLES.iterdir() if path.name != "README.md"}
    assert on_disk == set(built), "run: python scripts/make_sample_logs.py"
    for name, content in built.items():
        assert _text(name, (SAMPLES / name).read_bytes()) == _text(name, content), (
            f"{name} is stale: run python scripts/make_sample_logs.py")


def test_every_sample_is_listed_in_the_readme():
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    for path in SAMPLES.iterdir():
        if path.name != "README.md":
            assert f"`{path.name}`" in readme


def test_clean_samples_have_no_violation():
    clean = [str(path) for path in sorted(SAMPLES.iterdir()) if path.name.startswith(("tournament", "interleaved",
                                                                                         "archive"))]
    violations, summary = validate_paths(clean)
    assert violations == []
    assert summary.files == 5 and summary.matches == summary.valid_matches == 18


def test_every_violation_sample_has_every_in_file_code():
    violations, _ = validate_paths([str(SAMPLES / "every-violation.jsonl")])
    in_file_codes = {rule.code for rule in RULES if not rule.retired} - {"F007", "W404"}  # about a whole input
    assert {violation.code for violation in violations} == in_file_codes


def test_the_all_fives_sample_is_clean_but_for_its_house_deal():
    path = SAMPLES / "all-fives.jsonl"
    violations, summary = validate_paths([str(path)])
    assert summary.errors == 0 and summary.matches == summary.valid_matches == 4
    assert [(violation.match, violation.line, violation.code) for violation in violations] == [
        ("af-000004", _line_of(path, '"rules":{"hand":7}'), "W402")]


def _line_of(path: Path, text: str) -> int:
    return next(number for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if text in line)
