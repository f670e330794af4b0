"""``drawlog replay``: FILE:LINE, the three formats, and from ``validate`` to the board in one command."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from typer.testing import CliRunner

from drawlog.cli import app

ROOT = Path(__file__).resolve().parent.parent
EVERY = ROOT / "sample_logs" / "every-violation.jsonl"
FIVES = ROOT / "tests" / "fixtures" / "codes" / "allfives.clean.jsonl"
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, ["replay", *map(str, args)])


def test_file_line_shows_that_lines_match_up_to_it():
    result = run(f"{EVERY}:49", "--format", "json")
    assert result.exit_code == 0, result.output
    frames = [json.loads(line) for line in result.stdout.splitlines()]
    assert {frame["match"] for frame in frames} == {"F002-m1"} and frames[-1]["line"] == 49
    assert [v["code"] for v in frames[-1]["violations"]] == ["F002"]


def test_validate_names_the_command_that_shows_each_violation():
    shown = runner.invoke(app, ["validate", str(EVERY)], terminal_width=200)
    commands = re.findall(r"drawlog replay (\S+):(\d+)", shown.stdout)
    assert commands and all(Path(path) == EVERY for path, _ in commands)
    path, line = commands[3]
    result = run(f"{path}:{line}", "--format", "json")
    assert result.exit_code == 0
    last = json.loads(result.stdout.splitlines()[-1])
    assert last["line"] == int(line) and last["violations"]


def test_svg_is_well_formed_with_one_tile_element_per_tile():
    result = run(FIVES, "--at", "20", "--format", "svg")
    assert result.exit_code == 0
    root = ET.fromstring(result.stdout)
    tiles = [g.get("data-tile") for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "tile"]
    frames = [json.loads(line) for line in run(FIVES, "--at", "20", "-f", "json").stdout.splitlines()]
    assert sorted(tiles) == sorted(frames[-1]["board"]["tiles"]) and len(tiles) == len(set(tiles)) > 5


def test_text_in_each_language_uses_the_seeds_words():
    for lang, words in {"en": "Legal continuation points", "pl": "Dostępne miejsca dołożenia",
                        "tr": "Kurallara uygun devam noktaları", "es": "Puntos de continuación legal"}.items():
        result = runner.invoke(app, ["replay", str(FIVES), "--round", "1", "--lang", lang], terminal_width=120)
        assert result.exit_code == 0 and words in result.stdout


def test_round_and_match_selection_and_errors(tmp_path: Path):
    frames = [json.loads(line) for line in run(FIVES, "--round", "2", "-f", "json").stdout.splitlines()]
    assert frames and {frame["round"] for frame in frames} == {2}
    several = run(EVERY)
    assert several.exit_code == 2 and "--match" in several.output
    assert run(EVERY, "--match", "nope").exit_code == 2
    assert run(tmp_path / "missing.jsonl").exit_code == 2
    assert run(FIVES, "--lang", "xx").exit_code == 2
    out = tmp_path / "board.svg"
    assert run(FIVES, "-f", "svg", "-o", out).exit_code == 0 and out.read_text().startswith("<svg")


def test_a_match_id_written_with_json_escapes_is_found(tmp_path: Path) -> None:
    """``"caf\\u00e9"`` and ``"m\\/x"`` are the ids café and m/x: replay finds their lines by FILE:LINE and --match."""
    events = [json.loads(line) for line in FIVES.read_text().splitlines()]
    first = events[0]["match"]
    log = tmp_path / "escaped.jsonl"
    lines = []
    for event in events:
        if event["match"] == first:
            lines.append(json.dumps({**event, "match": "café"}))  # ensure_ascii: written "caf\u00e9"
    lines += [line.replace('"caf\\u00e9"', '"m\\/x"') for line in lines if '"match_start"' in line]
    log.write_text("\n".join(lines) + "\n")
    assert "caf\\u00e9" in log.read_text() and "café" not in log.read_text()
    for args in ([f"{log}:2"], [log, "--match", "café"]):
        result = run(*args, "--format", "json")
        assert result.exit_code == 0, result.output
        assert {json.loads(line)["match"] for line in result.stdout.splitlines()} == {"café"}
    listed = run(log)
    assert listed.exit_code == 2 and "café, m/x" in listed.output


def test_a_round_ended_by_the_target_is_named_in_each_language():
    """v1.2: round 4 of the All Fives fixture ends when ann's [2|6] takes her to 250 (line 112; round_end 113)."""
    for lang, (over, reason) in {"en": ("round over: target reached", "round 4  target  winner ann"),
                                 "pl": ("koniec rundy: cel osiągnięty", "runda 4  cel  zwycięzca ann"),
                                 "tr": ("oyun eli bitti: hedefe ulaşıldı", "oyun eli 4  hedef  kazanan ann"),
                                 "es": ("fin de la ronda: meta alcanzada", "ronda 4  meta  ganador ann")}.items():
        result = runner.invoke(app, ["replay", f"{FIVES}:113", "--lang", lang], terminal_width=150)
        assert result.exit_code == 0, result.output
        assert over in result.stdout and reason in result.stdout, lang
    frames = [json.loads(line) for line in run(f"{FIVES}:113", "-f", "json").stdout.splitlines()]
    assert frames[-2]["line"] == 112 and frames[-2]["over"] == "target" and frames[-1]["over"] == "target"
