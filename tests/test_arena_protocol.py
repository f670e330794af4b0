"""The bot protocol: the schemas and the docs follow the structs, and a bot sees its own view and nothing more."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from drawlog.engine.profiles import PROFILES
from drawlog.engine.tiles import TILE_ID, TILES
from drawlog.play.bot_program import answer
from drawlog.play.bot_view import SeatMemory
from drawlog.play.bots import BOTS
from drawlog.play.protocol import (
    FromBot,
    HouseRulesInfo,
    MatchBegins,
    RoundBegins,
    ToBot,
    Turn,
    decode,
    json_schema,
)
from drawlog.play.refereed import Builtin, Program, Referee

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "bot-protocol.md").read_text(encoding="utf-8")


def test_schema_files_are_generated_from_the_structs():
    for direction in ("to-bot", "from-bot"):
        on_disk = json.loads((ROOT / "schemas" / f"bot-protocol-v1.{direction}.schema.json").read_text())
        assert on_disk == json_schema(direction), \
            f"regenerate: python -m drawlog.bots --schema {direction} > schemas/bot-protocol-v1.{direction}.schema.json"


def test_every_message_is_documented():
    tags = sorted(json_schema("to-bot")["discriminator"]["mapping"]) + \
        sorted(json_schema("from-bot")["discriminator"]["mapping"])
    assert tags == ["bye", "hello", "match_end", "match_start", "round_end", "round_start", "turn",
                    "draw", "pass", "play", "ready"]
    for tag in tags:
        assert f'"type": "{tag}"' in DOC, f"docs/bot-protocol.md has no example of a {tag} message"
    # every example line in the document is a valid message of its direction
    examples = re.findall(r"^(?:←|→) (\{.*\})$", DOC, flags=re.MULTILINE)
    assert len(examples) >= len(tags)
    for line in re.findall(r"^→ (\{.*\})$", DOC, flags=re.MULTILINE):
        msgspec.json.decode(line, type=ToBot)
    for line in re.findall(r"^← (\{.*\})$", DOC, flags=re.MULTILINE):
        msgspec.json.decode(line, type=FromBot)


def test_a_bad_answer_names_what_is_wrong():
    for line, words in [(b"not json", "malformed"), (b'{"type": "play", "tile": [7, 1]}', "<= 6"),
                        (b'{"type": "jump"}', "Invalid value 'jump'"), (b'{"tile": [1, 2]}', "missing required")]:
        try:
            decode(line)
        except ValueError as error:
            assert words in str(error)
        else:
            raise AssertionError(f"{line!r} was accepted")
    assert decode(b'{"type": "play", "tile": [1, 2], "end": "left", "note": "unknown fields are ignored"}').tile \
        == (1, 2)


_LABEL = re.compile(r"\[(\d)\|(\d)\]")


def _tiles_in(value: object, found: set[int]) -> None:
    """Every tile a message mentions: a pair of pips, or a label ``[a|b]``."""
    if isinstance(value, dict):
        for item in value.values():
            _tiles_in(item, found)
    elif isinstance(value, list):
        if len(value) == 2 and all(isinstance(item, int) and 0 <= item <= 6 for item in value):
            found.add(TILE_ID[(value[0], value[1])])
        for item in value:
            _tiles_in(item, found)
    elif isinstance(value, str):
        for a, b in _LABEL.findall(value):
            found.add(TILE_ID[(int(a), int(b))])


class RecordingBot:
    """A bot program in process: each message checked against what the seat may see, answered by a built-in bot."""

    def __init__(self, bot: str, seat: int, variant: str, rules: HouseRulesInfo) -> None:
        self.bot = BOTS[bot]()
        self.seat = seat
        self.memory = SeatMemory(variant, rules)
        self.referee: Referee | None = None
        self.answers: list[bytes] = []
        self.messages = 0
        self.running = True

    def send(self, data: bytes, seconds: float) -> None:
        message = msgspec.json.decode(data, type=ToBot)
        plain = json.loads(data)
        self.messages += 1
        assert "stock_order" not in plain and not isinstance(plain.get("stock", 0), list)
        assert "hands" not in plain
        state = self.referee.match.round if self.referee is not None else None
        if state is not None:
            hidden = state.stock
            for seat, hand in enumerate(state.hands):
                if seat != self.seat:
                    hidden |= hand
            mentioned: set[int] = set()
            _tiles_in(plain, mentioned)
            leaked = [TILES[tile] for tile in mentioned if hidden >> tile & 1]
            assert leaked == [], f"{plain['type']} shows tiles the seat cannot see: {leaked}"
        if isinstance(message, MatchBegins):
            self.memory.match(message)
        elif isinstance(message, RoundBegins):
            self.memory.round(message)
        elif isinstance(message, Turn):
            assert message.hand == [TILES[tile] for tile in sorted(
                TILE_ID[tuple(tile)] for tile in message.hand)]  # type: ignore[index]
            rebuilt = self.memory.rebuild(message)
            real = self.referee.match.round  # type: ignore[union-attr]
            assert rebuilt.hands[self.seat] == real.hands[self.seat]
            assert rebuilt.on_line() == real.on_line()
            assert [hand.bit_count() for hand in rebuilt.hands] == [hand.bit_count() for hand in real.hands]
            assert rebuilt.legal_plays(self.seat) == real.legal_plays(self.seat)
            assert rebuilt.can_draw(self.seat) == real.can_draw(self.seat)
            self.answers.append(answer(self.bot.choose(rebuilt, self.seat, self.rng)))

    def receive(self, seconds: float, what: str = "") -> object:
        return decode(self.answers.pop())

    def unasked(self) -> bool:
        return bool(self.answers)

    def stop(self, polite: bool = True) -> None:
        self.running = False


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), variant=st.sampled_from(["draw", "all-fives"]), players=st.integers(2, 4),
       bots=st.lists(st.sampled_from(["random", "greedy", "tactician"]), min_size=4, max_size=4),
       programs=st.lists(st.booleans(), min_size=4, max_size=4))
def test_a_bot_sees_exactly_its_own_view(seed, variant, players, bots, programs):
    """Over random matches: no message shows a tile of another hand or of the stock, the view rebuilds the
    seat's real hand, line, sizes and legal actions, and bots by the protocol play their legal choices."""
    import random

    rules = PROFILES[variant].rules_for(players)
    info = HouseRulesInfo(hand=rules.hand, reserve=rules.reserve, target=rules.target)
    seats = []
    recorders = []
    for seat in range(players):
        name = f"p{seat + 1}"
        if programs[seat] or seat == 0:
            recorder = RecordingBot(bots[seat], seat, variant, info)
            recorder.rng = random.Random(seed + seat)
            recorder.memory.match(MatchBegins(match="m", players=[f"p{i + 1}" for i in range(players)], you=name,
                                              seat=seat))
            recorders.append(recorder)
            seats.append(Program(name, recorder, 1.0))  # type: ignore[arg-type]
        else:
            seats.append(Builtin(name, BOTS[bots[seat]](), seed))
    referee = Referee("m", seats, rules, str(seed), {})
    for recorder in recorders:
        recorder.referee = referee
    record = referee.play()
    assert record.forfeit is None, record.forfeit
    assert all(recorder.messages > 3 for recorder in recorders)


def test_every_message_of_a_session_fits_the_generated_schemas(tmp_path):
    """A real session (hello to bye) between the referee and a bot program, tapped: each line fits its schema."""
    jsonschema = __import__("pytest").importorskip("jsonschema")
    import sys

    from drawlog.play.arena import Arena, ArenaSettings, Entrant

    tap = tmp_path / "tap.py"
    log = tmp_path / "tap.log"
    tap.write_text(
        "import subprocess, sys, json\n"
        f"bot = subprocess.Popen([sys.executable, '-m', 'drawlog.bots', 'tactician'], stdin=subprocess.PIPE,"
        " stdout=subprocess.PIPE)\n"
        f"out = open({str(log)!r}, 'a')\n"
        "for line in sys.stdin:\n"
        "    out.write('> ' + line); out.flush()\n"
        "    bot.stdin.write(line.encode()); bot.stdin.flush()\n"
        "    if json.loads(line)['type'] in ('hello', 'turn'):\n"
        "        answer = bot.stdout.readline().decode()\n"
        "        out.write('< ' + answer); out.flush()\n"
        "        sys.stdout.write(answer); sys.stdout.flush()\n")
    for variant in ("draw", "all-fives"):
        entrants = [Entrant("tap", (sys.executable, str(tap))), Entrant("random", builtin="random")]
        Arena(ArenaSettings(entrants, tmp_path / variant, matches=2, variant=variant)).run()
    to_bot = jsonschema.Draft202012Validator(json_schema("to-bot"))
    from_bot = jsonschema.Draft202012Validator(json_schema("from-bot"))
    seen = set()
    for line in log.read_text().splitlines():
        direction, _, text = line.partition(" ")
        message = json.loads(text)
        (to_bot if direction == ">" else from_bot).validate(message)
        seen.add((direction, message["type"]))
    assert {kind for direction, kind in seen if direction == ">"} == \
        {"hello", "match_start", "round_start", "turn", "round_end", "match_end", "bye"}
    assert {kind for direction, kind in seen if direction == "<"} >= {"ready", "play", "draw"}
