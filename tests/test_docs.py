"""The checked-in schema, the README's rule catalog and code sample stay in step with the code."""

from __future__ import annotations

import json
import re
from pathlib import Path

from drawlog.check.rules import RULES
from drawlog.log.events import json_schema

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_schema_file_is_generated_from_the_event_structs():
    on_disk = json.loads((ROOT / "schemas" / "drawlog-v1.schema.json").read_text(encoding="utf-8"))
    assert on_disk == json_schema(), "regenerate: drawlog schema > schemas/drawlog-v1.schema.json"


def test_schema_knows_every_event_type():
    mapping = json_schema()["discriminator"]["mapping"]
    assert sorted(mapping) == sorted(
        ["match_start", "round_start", "draw", "play", "pass", "round_end", "match_end"]
    )


def test_readme_rule_catalog_matches_the_code():
    rows = re.findall(r"^\| ([A-Z]\d{3}) \| `([a-z-]+)` \| (\w+) \| (.+) \|$", README, flags=re.M)
    expected = [(rule.code, rule.name, rule.severity, rule.summary) for rule in RULES]
    assert rows == expected


def test_readme_quick_start_has_exactly_two_commands():
    section = README.split("## Quick start", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, flags=re.S)
    assert block is not None
    commands = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(commands) == 2
    assert "sample_logs/" in commands[0] and "pytest" in commands[1]


def test_readme_python_sample_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = re.search(r"```python\n(.*?)```", README, flags=re.S)
    assert code is not None
    namespace: dict = {}
    exec(compile(code.group(1), "README.md", "exec"), namespace)  # noqa: S102
    assert namespace["frame"].columns[:3] == ["file", "line", "match"] and namespace["summary"].unreadable == 1
    state = namespace["state"]
    assert (state.line.left, state.line.right) == (1, 4)
    assert [fault.code for fault in state.check_pass(1)] == ["M207", "M208"]
    deal = namespace["deal"]
    assert deal.play_points == [10, 0] and deal.last_points == 0 and not deal.can_draw(0)
