"""The plain text view of ``replay`` (``views/frame_plain.py``) writes the very characters rich's view prints.

Rich's view is taken from a console that colours (so ``render_frames`` draws
with rich) and recorded without its styles; the plain view from a console
that does not. Frames come from every sample log's matches, in every language
and at several widths, and from matches whose player names hypothesis makes
up (wide characters, characters of no width, words longer than a line).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from drawlog.check.walkthrough import Selection, match_ids, walk
from drawlog.log.sources import Source
from drawlog.views.board import _indented, render_frames
from drawlog.views.frame_plain import plain_frame, wrap
from drawlog.views.language import LANGUAGES, catalog

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"


def rich_view(frames: list[dict], words: dict, width: int) -> str:
    """What rich's own view prints, its styles left out."""
    console = Console(file=io.StringIO(), width=width, color_system="standard", force_terminal=True, record=True,
                      highlight=False, emoji=False, legacy_windows=False)
    render_frames(frames, words, console)
    return console.export_text(styles=False)


def plain_view(frames: list[dict], words: dict, width: int) -> str:
    """What the plain view writes on a console of no colours."""
    stream = io.StringIO()
    render_frames(frames, words, Console(file=stream, width=width, color_system=None, highlight=False, emoji=False))
    return stream.getvalue()


def sample_frames() -> list[tuple[str, list[dict]]]:
    found = []
    for path in sorted(SAMPLES.glob("*.jsonl")):
        source = Source(str(path), path)
        for match in match_ids(source, None)[:3]:
            found.append((f"{path.name}:{match}", walk(source, Selection(match))))
    return found


SAMPLE_FRAMES = sample_frames()


@pytest.mark.parametrize("width", [20, 37, 80, 100])
@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_plain_view_is_rich_view_on_every_sample_match(lang: str, width: int) -> None:
    words = catalog(lang)
    for name, frames in SAMPLE_FRAMES:
        assert plain_view(frames, words, width) == rich_view(frames, words, width), name


def test_plain_view_of_a_frame_wraps_under_its_indent_and_ends_with_the_position() -> None:
    frames = dict(SAMPLE_FRAMES)["tournament-2p.jsonl:t2-000001"]
    text = plain_frame(frames[5], catalog("en"), 40)
    assert text.splitlines()[:7] == ["line 6  Placed [1|5]  p2  left", "            ┌6┐", "  [5|1][1|6]│─│[6|5]",
                                     "            └6┘", "  open values: left 5 · right 5",
                                     "  Tiles: [6|6], [1|6], [5|6], [1|5].", "  Connections: [6|6] (chain side A) –"]
    assert text.splitlines()[-3:] == ["  stock: 14 left, 12 may still be drawn", "  legal moves: draw",
                                      "  scores: p1 0 · p2 0"]
    assert all(len(line) <= 40 and line == line.rstrip() for line in text.splitlines())
    written = plain_view(frames, catalog("en"), 80)
    assert written.endswith("\n\nposition: dp1 draw h7r2t100 p1:85,p2:35 round=6 opener=p2 line=25,51r,26l,13r,66l,"
                            "33r,34r,42r,21r,11r,65l,53l,32l,20l,04l,41l,16r,63r,10l,00l,05l,55l ends=5,3 "
                            "hands=-/03.22.45.46 stock=order:06.44 turn=p2 over=domino:p1\n")
    assert written.count("\n\nline ") == len(frames) - 1


def test_wrap_breaks_between_words_and_folds_a_word_longer_than_the_line() -> None:
    assert wrap("  ", "aaa bbb ccc", 13) == ["  aaa bbb ccc"]
    assert wrap("  ", "aaa bbb ccc", 12) == ["  aaa bbb", "  ccc"]
    assert wrap("  ", "aaaa bbbb cccc", 12) == ["  aaaa bbbb", "  cccc"]
    assert wrap("", "x" * 25, 10) == ["x" * 10, "x" * 10, "x" * 5]


NAMES = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=120)


def _renamed(names: tuple[str, str]) -> list[dict]:
    """The sample's first match with its two players renamed."""
    lines = (SAMPLES / "tournament-2p.jsonl").read_text().splitlines()
    text = "\n".join(line for line in lines if '"t2-000001"' in line)
    for old, new in zip(('"p1"', '"p2"'), names):
        text = text.replace(old, json.dumps(new))
    return text


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.tuples(NAMES, NAMES).filter(lambda pair: pair[0] != pair[1]),
       width=st.integers(min_value=20, max_value=120))
def test_plain_view_is_rich_view_whatever_the_names(tmp_path: Path, names: tuple[str, str], width: int) -> None:
    log = tmp_path / "renamed.jsonl"
    log.write_text(_renamed(names) + "\n", encoding="utf-8")
    frames = walk(Source(str(log), log), Selection("t2-000001"))
    assert plain_view(frames, catalog("en"), width) == rich_view(frames, catalog("en"), width)


NARROW_TEXT = st.text(st.sampled_from("ab cdé–·→ [|]"), max_size=300)


@settings(max_examples=400, deadline=None)
@given(text=NARROW_TEXT, width=st.integers(min_value=1, max_value=60))
def test_the_narrow_divider_breaks_where_rich_does(text: str, width: int) -> None:
    from rich._wrap import divide_line

    from drawlog.views.frame_plain import _divide_narrow

    ours = _divide_narrow(text, width)
    if ours is not None:  # None: a word longer than the line, left to rich
        assert ours == divide_line(text, width, fold=True)
    assert wrap("  ", text, width + 12) == [line.plain for line in _indented([Text(text)], width + 12)]


@pytest.mark.parametrize("selection", [Selection("t2-000001"), Selection("t2-000001", round=2),
                                       Selection("t2-000001", at=30), Selection("t2-000001", round=1, at=9)])
def test_frames_with_the_last_position_only_give_the_last_frame_its_position(selection: Selection) -> None:
    from drawlog.check.walkthrough import frames

    path = SAMPLES / "tournament-2p.jsonl"
    every = list(frames(Source(str(path), path), selection))
    last_only = list(frames(Source(str(path), path), selection, positions="last"))
    assert last_only[-1]["position"] == every[-1]["position"] is not None
    if selection.round is None:
        assert all(frame["position"] is None for frame in last_only[:-1])
    else:
        assert last_only == every
    assert [{**frame, "position": None} for frame in last_only] == [{**frame, "position": None} for frame in every]
