"""The board views of ``drawlog replay``: catalogs, the seeds' sentence, the text, SVG and JSON views.

The frames are built by hand, as the board model gives them, so these tests
pin the views alone; the seed sentences are copied from the seeds (Polish
000, Turkish 002, Spanish 003) and, in English, from issue 10's wording.
"""

from __future__ import annotations

import io
import json
import re
import string
import xml.etree.ElementTree as ET
from importlib import resources
from itertools import pairwise

import pytest
from rich.console import Console

from drawlog.views.board import describe, frame_lines, frames_json, printable, render_frames
from drawlog.views.board_svg import MAX_WIDTH, ROW_WIDTH, UNIT, board_svg
from drawlog.views.language import LANGUAGES, UnknownLanguage, catalog
from drawlog.views.points import ordered_points

SVG = "{http://www.w3.org/2000/svg}"


def item(tile: str, show: tuple[int, int], spinner: bool = False) -> dict:
    return {"tile": tile, "show": list(show), "double": show[0] == show[1], "spinner": spinner}


def link(tile: str, side: str, to_tile: str, to_side: str) -> dict:
    return {"tile": tile, "side": side, "to_tile": to_tile, "to_side": to_side}


def point(tile: str, side: str, value: int, end: str) -> dict:
    return {"tile": tile, "side": side, "value": value, "end": end}


def board(tiles, connections, open_, chain, arms=None, spinner=None, count=None) -> dict:
    ends = {"left": None, "right": None, "up": None, "down": None}
    for each in open_:
        ends[each["end"]] = each["value"]
    return {"tiles": tiles, "connections": connections, "open": open_, "chain": chain,
            "arms": arms or {"up": [], "down": []}, "spinner": spinner, "ends": ends, "count": count}


#: The seeds' worked boards, as the board model gives them (a lone plain tile lists its higher end first).
SEED_BOARDS = {
    "[1|4]": board(["[1|4]"], [], [point("[1|4]", "high", 4, "right"), point("[1|4]", "low", 1, "left")],
                   [item("[1|4]", (1, 4))]),
    "[1|4]+[1|1]": board(["[1|4]", "[1|1]"], [link("[1|4]", "low", "[1|1]", "A")],
                         [point("[1|1]", "B", 1, "left"), point("[1|4]", "high", 4, "right")],
                         [item("[1|1]", (1, 1)), item("[1|4]", (1, 4))]),
    "[3|6]+[6|6]": board(["[3|6]", "[6|6]"], [link("[3|6]", "high", "[6|6]", "A")],
                         [point("[3|6]", "low", 3, "left"), point("[6|6]", "B", 6, "right")],
                         [item("[3|6]", (3, 6)), item("[6|6]", (6, 6))]),
    "[0|0]": board(["[0|0]"], [], [point("[0|0]", "A", 0, "left"), point("[0|0]", "B", 0, "right")],
                   [item("[0|0]", (0, 0))]),
    "+[4|4]": board(["[1|4]", "[1|1]", "[4|4]"],
                    [link("[1|4]", "low", "[1|1]", "A"), link("[1|4]", "high", "[4|4]", "A")],
                    [point("[1|1]", "B", 1, "left"), point("[4|4]", "B", 4, "right")],
                    [item("[1|1]", (1, 1)), item("[1|4]", (1, 4)), item("[4|4]", (4, 4))]),
    "+[3|4]": board(["[1|4]", "[1|1]", "[4|4]", "[3|4]"],
                    [link("[1|4]", "low", "[1|1]", "A"), link("[1|4]", "high", "[4|4]", "A"),
                     link("[4|4]", "B", "[3|4]", "high")],
                    [point("[1|1]", "B", 1, "left"), point("[3|4]", "low", 3, "right")],
                    [item("[1|1]", (1, 1)), item("[1|4]", (1, 4)), item("[4|4]", (4, 4)), item("[3|4]", (4, 3))]),
    "[2|2]": board(["[2|2]"], [], [point("[2|2]", "A", 2, "left"), point("[2|2]", "B", 2, "right")],
                   [item("[2|2]", (2, 2))]),
}

#: The seeds' sentences, word for word.
SEED_SENTENCES = {
    "en": [
        "Tiles: [1|4]. Connections: none. Legal continuation points: [1|4] (higher end, 4); [1|4] (lower end, 1).",
        "Tiles: [1|4], [1|1]. Connections: [1|4] (lower end) – [1|1] (chain side A). Legal continuation points: [1|1] (chain side B, 1); [1|4] (higher end, 4).",
        "Tiles: [3|6], [6|6]. Connections: [3|6] (higher end) – [6|6] (chain side A). Legal continuation points: [3|6] (lower end, 3); [6|6] (chain side B, 6).",
        "Tiles: [0|0]. Connections: none. Legal continuation points: [0|0] (chain side A, 0); [0|0] (chain side B, 0).",
        "Tiles: [1|4], [1|1], [4|4]. Connections: [1|4] (lower end) – [1|1] (chain side A); [1|4] (higher end) – [4|4] (chain side A). Legal continuation points: [1|1] (chain side B, 1); [4|4] (chain side B, 4).",
        "Tiles: [1|4], [1|1], [4|4], [3|4]. Connections: [1|4] (lower end) – [1|1] (chain side A); [1|4] (higher end) – [4|4] (chain side A); [4|4] (chain side B) – [3|4] (higher end). Legal continuation points: [1|1] (chain side B, 1); [3|4] (lower end, 3).",
        "Tiles: [2|2]. Connections: none. Legal continuation points: [2|2] (chain side A, 2); [2|2] (chain side B, 2).",
    ],
    "pl": [
        "Klocki: [1|4]. Połączenia: brak. Dostępne miejsca dołożenia: [1|4] (koniec o większej wartości, 4); [1|4] (koniec o mniejszej wartości, 1).",
        "Klocki: [1|4], [1|1]. Połączenia: [1|4] (koniec o mniejszej wartości) – [1|1] (strona łańcucha A). Dostępne miejsca dołożenia: [1|1] (strona łańcucha B, 1); [1|4] (koniec o większej wartości, 4).",
        "Klocki: [3|6], [6|6]. Połączenia: [3|6] (koniec o większej wartości) – [6|6] (strona łańcucha A). Dostępne miejsca dołożenia: [3|6] (koniec o mniejszej wartości, 3); [6|6] (strona łańcucha B, 6).",
        "Klocki: [0|0]. Połączenia: brak. Dostępne miejsca dołożenia: [0|0] (strona łańcucha A, 0); [0|0] (strona łańcucha B, 0).",
        "Klocki: [1|4], [1|1], [4|4]. Połączenia: [1|4] (koniec o mniejszej wartości) – [1|1] (strona łańcucha A); [1|4] (koniec o większej wartości) – [4|4] (strona łańcucha A). Dostępne miejsca dołożenia: [1|1] (strona łańcucha B, 1); [4|4] (strona łańcucha B, 4).",
        "Klocki: [1|4], [1|1], [4|4], [3|4]. Połączenia: [1|4] (koniec o mniejszej wartości) – [1|1] (strona łańcucha A); [1|4] (koniec o większej wartości) – [4|4] (strona łańcucha A); [4|4] (strona łańcucha B) – [3|4] (koniec o większej wartości). Dostępne miejsca dołożenia: [1|1] (strona łańcucha B, 1); [3|4] (koniec o mniejszej wartości, 3).",
        "Klocki: [2|2]. Połączenia: brak. Dostępne miejsca dołożenia: [2|2] (strona łańcucha A, 2); [2|2] (strona łańcucha B, 2).",
    ],
    "tr": [
        "Taşlar: [1|4]. Bağlantılar: yok. Kurallara uygun devam noktaları: [1|4] (büyük uç, 4); [1|4] (küçük uç, 1).",
        "Taşlar: [1|4], [1|1]. Bağlantılar: [1|4] (küçük uç) – [1|1] (A doğrusu). Kurallara uygun devam noktaları: [1|1] (B doğrusu, 1); [1|4] (büyük uç, 4).",
        "Taşlar: [3|6], [6|6]. Bağlantılar: [3|6] (büyük uç) – [6|6] (A doğrusu). Kurallara uygun devam noktaları: [3|6] (küçük uç, 3); [6|6] (B doğrusu, 6).",
        "Taşlar: [0|0]. Bağlantılar: yok. Kurallara uygun devam noktaları: [0|0] (A doğrusu, 0); [0|0] (B doğrusu, 0).",
        "Taşlar: [1|4], [1|1], [4|4]. Bağlantılar: [1|4] (küçük uç) – [1|1] (A doğrusu); [1|4] (büyük uç) – [4|4] (A doğrusu). Kurallara uygun devam noktaları: [1|1] (B doğrusu, 1); [4|4] (B doğrusu, 4).",
        "Taşlar: [1|4], [1|1], [4|4], [3|4]. Bağlantılar: [1|4] (küçük uç) – [1|1] (A doğrusu); [1|4] (büyük uç) – [4|4] (A doğrusu); [4|4] (B doğrusu) – [3|4] (büyük uç). Kurallara uygun devam noktaları: [1|1] (B doğrusu, 1); [3|4] (küçük uç, 3).",
        "Taşlar: [2|2]. Bağlantılar: yok. Kurallara uygun devam noktaları: [2|2] (A doğrusu, 2); [2|2] (B doğrusu, 2).",
    ],
    "es": [
        "Fichas: [1|4]. Conexiones: ninguno. Puntos de continuación legal: [1|4] (extremo de valor alto, 4); [1|4] (extremo de valor bajo, 1).",
        "Fichas: [1|4], [1|1]. Conexiones: [1|4] (extremo de valor bajo) – [1|1] (línea A). Puntos de continuación legal: [1|1] (línea B, 1); [1|4] (extremo de valor alto, 4).",
        "Fichas: [3|6], [6|6]. Conexiones: [3|6] (extremo de valor alto) – [6|6] (línea A). Puntos de continuación legal: [3|6] (extremo de valor bajo, 3); [6|6] (línea B, 6).",
        "Fichas: [0|0]. Conexiones: ninguno. Puntos de continuación legal: [0|0] (línea A, 0); [0|0] (línea B, 0).",
        "Fichas: [1|4], [1|1], [4|4]. Conexiones: [1|4] (extremo de valor bajo) – [1|1] (línea A); [1|4] (extremo de valor alto) – [4|4] (línea A). Puntos de continuación legal: [1|1] (línea B, 1); [4|4] (línea B, 4).",
        "Fichas: [1|4], [1|1], [4|4], [3|4]. Conexiones: [1|4] (extremo de valor bajo) – [1|1] (línea A); [1|4] (extremo de valor alto) – [4|4] (línea A); [4|4] (línea B) – [3|4] (extremo de valor alto). Puntos de continuación legal: [1|1] (línea B, 1); [3|4] (extremo de valor bajo, 3).",
        "Fichas: [2|2]. Conexiones: ninguno. Puntos de continuación legal: [2|2] (línea A, 2); [2|2] (línea B, 2).",
    ],
}

#: All Fives: [5|5] leads, [5|3] right, [2|5] left, [5|1] up, [4|5] down, [1|1] up (the LOG-FORMAT example, extended).
FIVES_BOARD = board(
    ["[5|5]", "[3|5]", "[2|5]", "[1|5]", "[4|5]", "[1|1]"],
    [link("[5|5]", "B", "[3|5]", "high"), link("[5|5]", "A", "[2|5]", "high"), link("[5|5]", "up", "[1|5]", "high"),
     link("[5|5]", "down", "[4|5]", "high"), link("[1|5]", "low", "[1|1]", "A")],
    [point("[2|5]", "low", 2, "left"), point("[3|5]", "low", 3, "right"), point("[1|1]", "B", 1, "up"),
     point("[4|5]", "low", 4, "down")],
    [item("[2|5]", (2, 5)), item("[5|5]", (5, 5), spinner=True), item("[3|5]", (5, 3))],
    arms={"up": [item("[1|5]", (5, 1)), item("[1|1]", (1, 1))], "down": [item("[4|5]", (5, 4))]},
    spinner="[5|5]", count=12,
)

HOSTILE = "a\u001b[2Jb"


def frame(board_: dict | None = None, **changes) -> dict:
    """A play frame of a two-player Draw round on ``board_`` (the seeds' four-tile line by default)."""
    data = {
        "line": 12, "type": "play", "match": "m1", "round": 1, "variant": "draw",
        "event": {"type": "play", "match": "m1", "player": "ann", "tile": [3, 4], "end": "right"},
        "violations": [], "board": SEED_BOARDS["+[3|4]"] if board_ is None else board_,
        "hands": {"ann": ["[0|0]", "[2|5]"], "bob": ["[1|2]", "[5|6]"]},
        "stock_left": 12, "drawable": 10, "turn": "bob",
        "legal": [{"action": "play", "tile": "[1|2]", "end": "left"}, {"action": "draw"}],
        "scores": {"ann": 0, "bob": 0}, "over": None,
    }
    data.update(changes)
    return data


def render(frames, lang: str = "en", width: int = 100, color: bool = False) -> str:
    stream = io.StringIO()
    console = Console(file=stream, width=width, force_terminal=color, color_system="standard" if color else None,
                      legacy_windows=False)
    render_frames(frames, catalog(lang), console)
    return stream.getvalue()


# -- catalogs ------------------------------------------------------------------


def test_every_catalog_has_the_keys_of_english():
    english = catalog("en")
    for lang in LANGUAGES:
        assert set(catalog(lang)) == set(english), lang


def test_catalog_placeholders_match_english():
    english = catalog("en")
    for lang in LANGUAGES:
        words = catalog(lang)
        for key, text in english.items():
            fields = {name for _, name, _, _ in string.Formatter().parse(text) if name}
            assert {name for _, name, _, _ in string.Formatter().parse(words[key]) if name} == fields, (lang, key)


def test_catalog_files_are_the_languages():
    files = {entry.name for entry in resources.files("drawlog.views").joinpath("lang").iterdir()}
    assert files == {f"{lang}.json" for lang in LANGUAGES}


def test_unknown_language_fails_clearly():
    with pytest.raises(UnknownLanguage, match="unknown language 'de'.*en, pl, tr, es"):
        catalog("de")
    with pytest.raises(ValueError):
        catalog("../en")


def test_catalog_is_a_copy():
    catalog("en")["tiles"] = "changed"
    assert catalog("en")["tiles"] == "Tiles"


# -- the seeds' sentence -------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_describe_gives_the_seed_sentences(lang):
    words = catalog(lang)
    assert [describe(each, words) for each in SEED_BOARDS.values()] == SEED_SENTENCES[lang]


def test_describe_issue_sentence():
    assert describe(SEED_BOARDS["[1|4]+[1|1]"], catalog("en")) == (
        "Tiles: [1|4], [1|1]. Connections: [1|4] (lower end) – [1|1] (chain side A). "
        "Legal continuation points: [1|1] (chain side B, 1); [1|4] (higher end, 4).")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_describe_names_the_spinner_arms(lang):
    words = catalog(lang)
    sentence = describe(FIVES_BOARD, words)
    assert f"[5|5] ({words['side.up']}) – [1|5] ({words['side.high']})" in sentence
    assert f"[4|5] ({words['side.low']}, 4)." in sentence
    assert words["side.up"] != words["side.down"]


def test_describe_empty_board():
    assert describe(board([], [], [], []), catalog("en")) == \
        "Tiles: none. Connections: none. Legal continuation points: none."


# -- the SVG view --------------------------------------------------------------


def _svg_tiles(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return [g.get("data-tile") for g in root.iter(f"{SVG}g") if g.get("class") == "tile"]


@pytest.mark.parametrize("name", [*SEED_BOARDS, "fives"])
def test_svg_has_one_tile_element_per_tile(name):
    board_ = FIVES_BOARD if name == "fives" else SEED_BOARDS[name]
    svg = board_svg(board_)
    assert sorted(_svg_tiles(svg)) == sorted(board_["tiles"])
    assert re.findall(r"https?://[^\"' ]*", svg) == ["http://www.w3.org/2000/svg"]
    assert "href" not in svg and "@import" not in svg and "url(" not in svg


def test_svg_marks_each_continuation_point():
    root = ET.fromstring(board_svg(FIVES_BOARD))
    marks = [(g.get("data-end"), int(g.get("data-value"))) for g in root.iter(f"{SVG}g") if g.get("class") == "open"]
    assert marks == [(each["end"], each["value"]) for each in ordered_points(FIVES_BOARD)]  # as the text lists them
    assert sorted(marks) == sorted((each["end"], each["value"]) for each in FIVES_BOARD["open"])


def test_svg_pips_follow_the_tiles():
    root = ET.fromstring(board_svg(SEED_BOARDS["+[3|4]"]))
    pips = {g.get("data-tile"): len(list(g.iter(f"{SVG}circle"))) for g in root.iter(f"{SVG}g")
            if g.get("class") == "tile"}
    assert pips == {"[1|4]": 5, "[1|1]": 2, "[4|4]": 8, "[3|4]": 7}


def test_svg_of_an_empty_board_and_a_long_chain():
    assert _svg_tiles(board_svg(board([], [], [], []))) == []
    tiles = [f"[{low}|{high}]" for low in range(7) for high in range(low, 7)]
    chain = [item(tile, (int(tile[1]), int(tile[3]))) for tile in tiles]
    svg = board_svg(board(tiles, [], [point(tiles[0], "A", 0, "left")], chain))
    assert len(_svg_tiles(svg)) == 28
    assert int(ET.fromstring(svg).get("width")) <= MAX_WIDTH
    rows = {float(rect.get("y")) for rect in ET.fromstring(svg).iter(f"{SVG}rect") if rect.get("rx")}
    assert len(rows) == 4  # two rows, plain tiles and doubles in each


def _halves(svg: str) -> list[tuple[float, float, int, int]]:
    """Each tile as drawn: its rect's x and y, and the pips of its left (top) and right (bottom) half."""
    found = []
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        if g.get("class") != "tile":
            continue
        rect = g.find(f"{SVG}rect")
        x, y, width = float(rect.get("x")), float(rect.get("y")), float(rect.get("width"))
        middle = x + width / 2 if width > UNIT else None
        pips = [(float(c.get("cx")), float(c.get("cy"))) for c in g.iter(f"{SVG}circle")]
        if middle is None:  # upright (a double): both halves alike
            found.append((x, y, len(pips) // 2, len(pips) // 2))
        else:
            found.append((x, y, sum(cx < middle for cx, _ in pips), sum(cx > middle for cx, _ in pips)))
    return found


def test_svg_a_long_chain_bends_back_with_a_connector():
    values = [0, 1, 2, 3, 4, 5, 6, 0, 2, 4, 6, 1, 3, 5, 0, 3, 6, 2, 5, 1, 4, 0]  # a line of 21 tiles, no double
    tiles = [f"[{min(a, b)}|{max(a, b)}]" for a, b in pairwise(values)]
    chain = [item(tile, (a, b)) for tile, a, b in zip(tiles, values, values[1:])]
    svg = board_svg(board(tiles, [], [point(tiles[0], "A", 0, "left"), point(tiles[-1], "B", 0, "right")], chain))
    drawn = _halves(svg)  # in chain order
    rows = sorted({y for _, y, _, _ in drawn})
    assert len(rows) == 2 and ET.fromstring(svg).findall(f".//{SVG}path[@class='bend']")
    first = [tile for tile in drawn if tile[1] == rows[0]]
    second = [tile for tile in drawn if tile[1] == rows[1]]
    assert all(a[0] < b[0] for a, b in pairwise(first))  # left to right, then
    assert all(a[0] > b[0] for a, b in pairwise(second))  # right to left below
    assert second[0][0] == first[-1][0]  # the row below starts under where the first stopped
    # each tile touches the one placed before it with the matching half, whichever way its row runs
    for (_, _, _, right), value in zip(first, values[1:]):
        assert right == value
    for (_, _, left, _), value in zip(second, values[len(first) + 1:]):
        assert left == value
    marks = {g.get("data-end"): g for g in ET.fromstring(svg).iter(f"{SVG}g") if g.get("class") == "open"}
    arrow = [float(n.split(",")[0]) for n in marks["right"].find(f"{SVG}polygon").get("points").split()]
    assert arrow[1] < min(arrow[0], arrow[2]) < second[-1][0]  # the right end's arrow points left, past its tile
    assert int(ET.fromstring(svg).get("width")) <= ROW_WIDTH + 100  # drawn at its own size: no scaling down


# -- the text view -------------------------------------------------------------


def test_text_view_shows_the_frame():
    text = render([frame()], width=300)
    assert "line 12  Placed [3|4]  ann  right" in text
    assert "┌1┐     ┌4┐" in text and "│─│[1|4]│─│[4|3]" in text and "└1┘     └4┘" in text
    assert "open values: left 1 · right 3" in text
    assert SEED_SENTENCES["en"][5] in text
    assert "turn: bob" in text
    assert "→ bob  [1|2] [5|6]" in text
    assert "stock: 12 left, 10 may still be drawn" in text
    assert "legal moves: play [1|2] left; draw" in text


def test_text_view_in_polish_uses_the_seeds_words():
    text = render([frame()], "pl", width=600)
    assert SEED_SENTENCES["pl"][5] in text
    assert "stos dobierania" in text and "dołóż [1|2] lewy; dobierz" in text


def test_text_view_all_fives_lists_the_arms():
    text = render([frame(FIVES_BOARD, variant="all-fives")], width=300)
    assert "spinner: [5|5]   up arm: [5|1] [1|1]   down arm: [5|4]" in text
    assert "count: 12" in text
    assert "open values: left 2 · right 3 · up 1 · down 4" in text


def test_text_view_escapes_a_hostile_name_and_shows_codes():
    hostile = frame(
        event={"type": "play", "match": "m\x07", "player": HOSTILE, "tile": [3, 4], "end": "right"},
        hands={HOSTILE: ["[0|0]"], "[bold]bob[/bold]": ["[1|2]"]}, turn=HOSTILE,
        scores={HOSTILE: 0, "[bold]bob[/bold]": 0},
        violations=[{"code": "M205", "severity": "error", "message": f"{HOSTILE} drew", "player": HOSTILE},
                    {"code": "W401", "severity": "warning", "message": "late", "player": None}])
    for color in (False, True):
        text = render([hostile], color=color)
        assert "\x1b[2J" not in text and "\x07" not in text
        assert "a\\x1b[2Jb" in text
        assert "[bold]bob[/bold]" in text
    colored = render([hostile], color=True)
    assert "\x1b[1;31mM205" in colored and "\x1b[1;33mW401" in colored
    plain = render([hostile])
    assert "M205 error" in plain and "W401 warning" in plain


def test_printable_escapes_controls_only():
    assert printable("ann") == "ann"
    assert printable("żółw ğ ñ") == "żółw ğ ñ"
    assert printable("a\u001bb\u202ec\x00\n") == "a\\x1bb\\u202ec\\x00\\n"
    assert printable(12) == "12"


def test_text_view_of_events_outside_a_round():
    start = frame(None, line=1, type="match_start", round=None, board=None, hands={}, turn=None, legal=[],
                  event={"type": "match_start", "match": "m1", "players": ["ann", "bob"], "variant": "all-fives"})
    text = render([start])
    assert "line 1  Match start  m1  ann, bob  All Fives" in text
    assert "turn" not in text
    end = frame(board(["[1|4]"], [], [], [item("[1|4]", (1, 4))]), type="round_end", over="domino", turn=None,
                legal=[], event={"type": "round_end", "match": "m1", "round": 1, "reason": "domino",
                                 "winner": "ann", "points": {"ann": 12, "bob": 0}})
    text = render([end], "es")
    assert "línea 12  Final de la ronda  ronda 1  dominó  ganador ann  puntos ann 12 · bob 0" in text
    assert "fin de la ronda: dominó" in text and "turno: nadie" in text


def test_long_chain_drawing_wraps():
    tiles = [f"[{low}|{high}]" for low in range(7) for high in range(low, 7)]
    chain = [item(tile, (int(tile[1]), int(tile[3]))) for tile in tiles]
    lines = frame_lines(frame(board(tiles, [], [], chain)), catalog("en"), width=40)
    text = render([frame(board(tiles, [], [], chain))], width=40)
    assert len(lines) > 9
    assert max(map(len, text.splitlines())) <= 40


# -- the JSON view -------------------------------------------------------------


def test_frames_json_is_one_object_per_line():
    frames = [frame(), frame(FIVES_BOARD, line=13, event={"type": "play", "player": HOSTILE})]
    data = frames_json(frames)
    lines = data.decode("utf-8").splitlines()
    assert len(lines) == 2 and data.endswith(b"\n")
    assert [json.loads(line) for line in lines] == frames
    assert b"\x1b" not in data
