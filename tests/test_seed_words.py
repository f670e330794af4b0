"""The seeds' words in ``drawlog replay``: continuation points in the seeds' order for a log and its mirror image.

A mirrored log lays the same tiles on the opposite ends (its opening tile
written the other way round, ``[4,1]`` for ``[1,4]``): left and right swap,
and the seeds' sentence must not change.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from test_board_views import FIVES_BOARD, SEED_SENTENCES, frame, render
from test_replay_cli import EVERY
from test_walkthrough import SEED_BOARDS, draw_log, frames_of
from typer.testing import CliRunner

from drawlog.check.rules import RULES, RULES_BY_CODE
from drawlog.cli import app
from drawlog.engine.board import Board
from drawlog.engine.tiles import TILES
from drawlog.views.board import describe, event_text
from drawlog.views.language import LANGUAGES, catalog
from drawlog.views.points import ordered_points

#: The seeds with the worked boards: 000 Polish, 002 Turkish, 003 Spanish (Draw).
SEED_LANGUAGES = ("pl", "tr", "es")
SWAP = {"left": "right", "right": "left"}


def mirrored(plays: list[list[int]], ends: dict[int, str]) -> tuple[list[list[int]], dict[int, str]]:
    """The same plays on the opposite ends: the opening tile written the other way round, left and right swapped."""
    return [list(reversed(plays[0])), *plays[1:]], {index: SWAP.get(end, end) for index, end in ends.items()}


def last_board(tmp_path: Path, plays: list[list[int]], ends: dict[int, str]) -> dict:
    return frames_of(tmp_path, draw_log(plays, ends))[-1]["board"]


@pytest.mark.parametrize("lang", SEED_LANGUAGES)
@pytest.mark.parametrize("index, name", list(enumerate(SEED_BOARDS)))
def test_a_mirrored_seed_board_reads_like_the_seed(tmp_path: Path, lang: str, index: int, name: str):
    """The 21 mirrored boards (7 boards, 3 seeds): the seed's sentence word for word, points in the seed's order."""
    plays, ends, *_ = SEED_BOARDS[name]
    board = last_board(tmp_path, *mirrored(plays, ends))
    original = last_board(tmp_path, plays, ends)
    if len(plays) > 1:  # the log really is mirrored: the chain runs the other way
        assert [item["tile"] for item in board["chain"]] == [item["tile"] for item in reversed(original["chain"])]
    assert describe(board, catalog(lang)) == describe(original, catalog(lang)) == SEED_SENTENCES[lang][index]


@pytest.mark.parametrize("name", SEED_BOARDS)
def test_mirrored_points_are_the_seeds_points_in_english_too(tmp_path: Path, name: str):
    plays, ends, _, _, points = SEED_BOARDS[name]
    for each in (plays, ends), mirrored(plays, ends):
        board = last_board(tmp_path, *each)
        assert [(p["tile"], p["side"], p["value"]) for p in ordered_points(board)] == points
        assert [(p["tile"], p["side"], p["value"]) for p in board["open"]] == points  # the JSON frame too
    assert describe(last_board(tmp_path, *mirrored(plays, ends)), catalog("en")) == \
        SEED_SENTENCES["en"][list(SEED_BOARDS).index(name)]


def test_all_fives_points_go_by_value_whichever_way_the_chain_runs():
    flipped = dict(FIVES_BOARD, open=[dict(point, end=SWAP.get(point["end"], point["end"]))
                                      for point in reversed(FIVES_BOARD["open"])])
    expected = [("[1|1]", 1), ("[2|5]", 2), ("[3|5]", 3), ("[4|5]", 4)]
    for board in FIVES_BOARD, flipped:
        assert [(p["tile"], p["value"]) for p in ordered_points(board)] == expected
    assert describe(flipped, catalog("pl")) == describe(FIVES_BOARD, catalog("pl"))


def test_equal_values_go_by_the_tile_placed_first():
    # [2|5] opens, [5|3] right, [3|2] right: both ends are 2; [2|5] was placed first.
    board = {"tiles": ["[2|5]", "[3|5]", "[2|3]"], "open": [
        {"tile": "[2|3]", "side": "low", "value": 2, "end": "right"},
        {"tile": "[2|5]", "side": "low", "value": 2, "end": "left"}]}
    assert [p["tile"] for p in ordered_points(board)] == ["[2|5]", "[2|3]"]
    spinner = {"tiles": ["[5|5]", "[3|5]", "[2|5]"], "open": [
        {"tile": "[2|5]", "side": "low", "value": 2, "end": "left"},
        {"tile": "[3|5]", "side": "low", "value": 3, "end": "right"},
        {"tile": "[5|5]", "side": "down", "value": 5, "end": "down"},
        {"tile": "[5|5]", "side": "up", "value": 5, "end": "up"}]}
    assert [p["end"] for p in ordered_points(spinner)] == ["left", "right", "up", "down"]


# -- headings in the seeds' words -----------------------------------------------

#: A frame of each event type: (type, event).
EVENTS = {
    "match_start": {"type": "match_start", "match": "m1", "players": ["ann", "bob"], "variant": "draw"},
    "round_start": {"type": "round_start", "match": "m1", "round": 2, "opener": "bob"},
    "play": {"type": "play", "match": "m1", "player": "ann", "tile": [3, 4], "end": "right"},
    "draw": {"type": "draw", "match": "m1", "player": "ann", "tile": [2, 5]},
    "pass": {"type": "pass", "match": "m1", "player": "ann"},
    "round_end": {"type": "round_end", "match": "m1", "round": 2, "reason": "blocked", "winner": None,
                  "points": {"ann": 0, "bob": 0}},
    "match_end": {"type": "match_end", "match": "m1", "winner": "ann", "scores": {"ann": 101, "bob": 40}},
}

#: The first line of each frame: a placed tile headed as the seeds head their boards (Dołożono / Oynanan /
#: Colocada [1|4]); drawn, passed and the opening in the seeds' words for them.
HEADINGS = {
    "en": ["line 12  Match start  m1  ann, bob  Draw", "line 12  Opening  round 2  opener bob",
           "line 12  Placed [3|4]  ann  right", "line 12  Drawn [2|5]  ann", "line 12  Passed  ann",
           "line 12  Round end  round 2  blocked  no winner  points ann 0 · bob 0",
           "line 12  Match end  winner ann  scores ann 101 · bob 40"],
    "pl": ["wiersz 12  Początek meczu  m1  ann, bob  Draw", "wiersz 12  Otwarcie  runda 2  otwierający bob",
           "wiersz 12  Dołożono [3|4]  ann  prawy", "wiersz 12  Dobrano [2|5]  ann", "wiersz 12  Spasowano  ann",
           "wiersz 12  Koniec rundy  runda 2  blokada  bez zwycięzcy  punkty ann 0 · bob 0",
           "wiersz 12  Koniec meczu  zwycięzca ann  wyniki ann 101 · bob 40"],
    "tr": ["satır 12  Karşılaşma başlangıcı  m1  ann, bob  Draw", "satır 12  Açılış  oyun eli 2  açan oyuncu bob",
           "satır 12  Oynanan [3|4]  ann  sağ", "satır 12  Çekilen [2|5]  ann", "satır 12  Pas  ann",
           "satır 12  Oyun eli sonu  oyun eli 2  tıkanma  kazanan yok  puan ann 0 · bob 0",
           "satır 12  Karşılaşma sonucu  kazanan ann  puanlar ann 101 · bob 40"],
    "es": ["línea 12  Inicio de la partida  m1  ann, bob  Draw", "línea 12  Apertura  ronda 2  jugador de apertura bob",
           "línea 12  Colocada [3|4]  ann  derecha", "línea 12  Robada [2|5]  ann", "línea 12  Pase  ann",
           "línea 12  Final de la ronda  ronda 2  bloqueo  sin ganador  puntos ann 0 · bob 0",
           "línea 12  Final de la partida  ganador ann  marcadores ann 101 · bob 40"],
}


@pytest.mark.parametrize("lang", HEADINGS)
def test_frame_headings_use_the_seeds_words(lang: str):
    words = catalog(lang)
    headings = [event_text(frame(None, type=kind, event=event), words).plain for kind, event in EVENTS.items()]
    assert headings == HEADINGS[lang]


@pytest.mark.parametrize("lang", SEED_LANGUAGES)
def test_a_placed_tile_is_headed_as_the_seed_heads_its_boards(lang: str):
    seed = {"pl": "Dołożono", "tr": "Oynanan", "es": "Colocada"}[lang]
    text = render([frame(event={"type": "play", "match": "m1", "player": "ann", "tile": [1, 4]})], lang)
    assert text.splitlines()[0].split("  ")[1] == f"{seed} [1|4]"


# -- All Fives in Polish: seed 004's words ----------------------------------------

#: The All Fives board in Polish: the spinner's sides are its *boki*, its ends its *końcówki* (004: "do boków
#: przędzarki", "do końcówek"); the points in the seeds' order.
FIVES_POLISH = (
    "Klocki: [5|5], [3|5], [2|5], [1|5], [4|5], [1|1]. "
    "Połączenia: [5|5] (bok B) – [3|5] (koniec o większej wartości); "
    "[5|5] (bok A) – [2|5] (koniec o większej wartości); "
    "[5|5] (końcówka górna) – [1|5] (koniec o większej wartości); "
    "[5|5] (końcówka dolna) – [4|5] (koniec o większej wartości); "
    "[1|5] (koniec o mniejszej wartości) – [1|1] (strona łańcucha A). "
    "Dostępne miejsca dołożenia: [1|1] (strona łańcucha B, 1); [2|5] (koniec o mniejszej wartości, 2); "
    "[3|5] (koniec o mniejszej wartości, 3); [4|5] (koniec o mniejszej wartości, 4).")


def test_all_fives_in_polish_uses_seed_004s_words():
    assert describe(FIVES_BOARD, catalog("pl")) == FIVES_POLISH
    play = {"type": "play", "match": "m1", "player": "ann", "tile": [1, 1], "end": "up", "points": 10}
    lines = render([frame(FIVES_BOARD, variant="all-fives", event=play)], "pl", width=1000).splitlines()
    assert lines[0] == "wiersz 12  Dołożono [1|1]  ann  górna końcówka  punkty 10"
    assert lines[4] == "  wolne wartości: lewy 2 · prawy 3 · górna końcówka 1 · dolna końcówka 4   suma końców: 12"
    assert lines[5] == "  spinner: [5|5]   końcówka górna: [5|1] [1|1]   końcówka dolna: [5|4]"
    assert lines[6] == f"  {FIVES_POLISH}"
    assert "  boneyard: pozostałe klocki: 12, do dobrania: 10" in lines
    end = {"type": "round_end", "match": "m1", "round": 1, "reason": "domino", "winner": "ann",
           "points": {"ann": 0, "bob": -10}}
    heading = render([frame(FIVES_BOARD, type="round_end", variant="all-fives", event=end)], "pl").splitlines()[0]
    assert heading == "wiersz 12  Koniec rundy  runda 1  domino  zwycięzca ann  punkty ann 0 · bob -10"


def test_a_lone_spinner_names_its_sides_boki():
    board = {"tiles": ["[5|5]"], "connections": [], "spinner": "[5|5]", "open": [
        {"tile": "[5|5]", "side": "B", "value": 5, "end": "right"},
        {"tile": "[5|5]", "side": "A", "value": 5, "end": "left"}]}
    assert describe(board, catalog("pl")).endswith("Dostępne miejsca dołożenia: [5|5] (bok A, 5); [5|5] (bok B, 5).")
    assert "strona łańcucha A" in describe(dict(board, spinner=None), catalog("pl"))  # a double in Draw


def test_draw_in_polish_keeps_seed_000s_words():
    lines = render([frame()], "pl", width=1000).splitlines()
    assert "  stos dobierania: pozostałe klocki: 12, do dobrania: 10" in lines
    assert not any("boneyard" in line or "końcówk" in line for line in lines)


# -- the rules in the replay's language --------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_rule_code_has_a_name_and_summary_in_every_language(lang: str):
    words = catalog(lang)
    for rule in RULES:
        name, summary = words[f"rule.{rule.code}.name"], words[f"rule.{rule.code}.summary"]
        assert name.strip() and summary.strip(), (lang, rule.code)
        # the log's own words (`seq`, `round_end`) and the codes named stay as they are
        assert sorted(re.findall(r"`[^`]+`", summary)) == sorted(re.findall(r"`[^`]+`", rule.summary)), \
            (lang, rule.code)
        assert re.findall(r"\b[FSMRW]\d{3}\b", summary) == re.findall(r"\b[FSMRW]\d{3}\b", rule.summary)
        if lang != "en":
            assert (name, summary) != (rule.name, rule.summary), (lang, rule.code)
    assert {key.split(".")[1] for key in words if key.startswith("rule.")} == {rule.code for rule in RULES}


def test_english_rule_words_are_the_rule_catalogs():
    words = catalog("en")
    assert words["rule.M205.name"] == RULES_BY_CODE["M205"].name == "illegal-draw"
    assert words["rule.M205.summary"] == RULES_BY_CODE["M205"].summary


#: A violation as the replay shows it: code, severity, player and message, then under it the rule in the replay's
#: language.
RULE_LINES = {
    "en": ["  M208 error  ann:  ann passes while holding a playable tile",
           "    pass-while-playable: A pass while holding a tile that fits the line."],
    "pl": ["  M208 błąd  ann:  ann passes while holding a playable tile",
           "    pas z grywalnym klockiem: Pas, choć gracz ma klocek pasujący do łańcucha."],
    "tr": ["  M208 hata  ann:  ann passes while holding a playable tile",
           "    oynanabilir taş varken pas: Diziye uyan bir taş eldeyken pas geçmek."],
    "es": ["  M208 error  ann:  ann passes while holding a playable tile",
           "    pase con ficha jugable: Un pase teniendo una ficha que coincide con la línea."],
}


@pytest.mark.parametrize("lang", RULE_LINES)
def test_a_violation_shows_its_rule_in_the_replays_language(lang: str):
    violation = {"code": "M208", "severity": "error", "message": "ann passes while holding a playable tile",
                 "player": "ann"}
    lines = render([frame(type="pass", event=EVENTS["pass"], violations=[violation])], lang, width=200).splitlines()
    assert lines[1:3] == RULE_LINES[lang]


def test_replay_in_polish_names_the_rules_in_polish():
    result = CliRunner().invoke(app, ["replay", f"{EVERY}:49", "--lang", "pl"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "F002 błąd" in result.stdout and f"{catalog('pl')['rule.F002.name']}: Zdarzenie nie pasuje" in result.stdout


# -- any board and its mirror image ----------------------------------------------------


def test_an_opening_double_names_first_the_side_the_next_tile_touches(tmp_path: Path):
    """[2|2] opens, [2|5] goes on either end: [2|2]'s side A is the one it touches, both ways."""
    for ends in ({1: "right"}, {1: "left"}):
        board = last_board(tmp_path, [[2, 2], [2, 5]], ends)
        assert describe(board, catalog("en")) == (
            "Tiles: [2|2], [2|5]. Connections: [2|2] (chain side A) – [2|5] (lower end). "
            "Legal continuation points: [2|2] (chain side B, 2); [2|5] (higher end, 5).")


@pytest.mark.parametrize("spinner_rules", [False, True], ids=["draw", "all-fives"])
def test_random_boards_read_like_their_mirror_images(spinner_rules: bool):
    """Random lines of play (All Fives: with its arms), laid as logged and mirrored: the same sentence each time."""
    words, described = catalog("pl"), 0
    for seed in range(150):
        rng = random.Random(seed)
        tiles = list(TILES)
        rng.shuffle(tiles)
        board, mirror = Board(spinner_rules), Board(spinner_rules)
        first = tiles.pop()
        board.place(first, "left")
        mirror.place((first[1], first[0]), "left")
        for _ in range(rng.randint(1, 10)):
            ends = {end: board.value(end) for end in ("left", "right", "up", "down")}
            options = [(tile, end) for tile in tiles for end, value in ends.items() if value in tile]
            if not options:
                break
            tile, end = rng.choice(options)
            tiles.remove(tile)
            board.place(tile, end)
            mirror.place(tile, SWAP.get(end, end))
            assert describe(mirror.as_data(), words) == describe(board.as_data(), words), (seed, board, mirror)
            described += 1
    assert described > 500
