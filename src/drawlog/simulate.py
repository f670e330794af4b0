"""Simulated matches: bots choose among the engine's legal actions, the engine applies them.

The simulator has no rules of its own: legality comes from
:meth:`Round.legal_plays`, :meth:`Round.can_draw` and :meth:`Round.can_pass`,
and every action goes through the engine's checked ``draw`` / ``play`` /
``pass_turn``. Same seed, same events.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import msgspec

from .events import Draw, Event, MatchEnd, MatchStart, Pass, Play, RoundEnd, RoundStart
from .match import Deal, Match, hand_size
from .rounds import Round
from .tiles import PIPS, TILE_COUNT, TILES, bits, members, tile_id

DRAW = ("draw",)
PASS = ("pass",)
Action = tuple


class Bot:
    """Chooses an action for the seat to move; subclasses name themselves in ``name``."""

    name = "bot"

    def choose(self, state: Round, seat: int, rng: random.Random) -> Action:
        """``("draw",)``, ``("pass",)`` or ``("play", halves, end)``; must be legal."""
        raise NotImplementedError


class RandomBot(Bot):
    """Uniform over every legal action, voluntary draws (and a draw before the opening tile) included."""

    name = "random"

    def choose(self, state: Round, seat: int, rng: random.Random) -> Action:
        actions: list[Action] = [("play", halves, end) for halves, end in state.legal_plays(seat)]
        if state.can_draw(seat):
            actions.append(DRAW)
        if not actions:
            return PASS
        return rng.choice(actions)


class GreedyBot(Bot):
    """Sheds the heaviest playable tile; draws only when it must, passes only when it must."""

    name = "greedy"

    def choose(self, state: Round, seat: int, rng: random.Random) -> Action:
        plays = state.legal_plays(seat)
        if plays:
            halves, end = max(plays, key=lambda play: PIPS[tile_id(play[0])])
            return ("play", halves, end)
        return DRAW if state.can_draw(seat) else PASS


BOTS: dict[str, type[Bot]] = {cls.name: cls for cls in (RandomBot, GreedyBot)}


@dataclass
class SimulationOptions:
    """What the simulated logs include."""

    players: int | str = 2  # 2, 3, 4 or "mixed"
    bots: Sequence[str] = ("random",)
    log_stock: bool = True
    log_seq: bool = False
    reveal_hands: bool = False
    omit_optional_end: bool = True
    match_prefix: str = "m"
    fault_rate: float = 0.0
    meta: dict[str, object] | None = None


@dataclass(frozen=True)
class InjectedFault:
    """A violation put into a match on purpose: the match, the event's index in it (1-based), the code."""

    match: str
    index: int
    code: str


class Simulator:
    """Plays matches and yields their events (msgspec structs of :mod:`drawlog.events`)."""

    def __init__(self, seed: int, options: SimulationOptions | None = None) -> None:
        self.rng = random.Random(seed)
        self.options = options or SimulationOptions()
        #: Faults injected so far (``fault_rate`` > 0), at most one per match.
        self.injected: list[InjectedFault] = []
        self._fault_pending = False

    def matches(self, count: int) -> Iterator[list[Event]]:
        """``count`` complete matches, each as its list of events."""
        for index in range(count):
            yield self.match(f"{self.options.match_prefix}{index + 1:06d}")

    def match(self, match_id: str) -> list[Event]:
        """One complete match."""
        rng, options = self.rng, self.options
        players = options.players if options.players != "mixed" else rng.choice((2, 3, 4))
        names = [f"p{seat + 1}" for seat in range(int(players))]
        bots = [BOTS[options.bots[seat % len(options.bots)]]() for seat in range(len(names))]
        meta = {**(options.meta or {}), "bots": [bot.name for bot in bots]}
        events: list[Event] = [MatchStart(match=match_id, players=names, meta=meta)]
        match = Match(names)
        self._fault_pending = options.fault_rate > 0 and rng.random() < options.fault_rate
        opener = rng.randrange(len(names))
        while not match.result.decided:
            self._play_round(match, match_id, opener, bots, events)
            opener = (opener + 1) % len(names)
        scores = dict(zip(names, match.scores))
        winner = names[match.result.winner] if match.result.winner is not None else None
        events.append(MatchEnd(match=match_id, scores=scores, winner=winner))
        if options.log_seq:
            events = [msgspec.structs.replace(event, seq=index) for index, event in enumerate(events, 1)]
        return events

    def _play_round(self, match: Match, match_id: str, opener: int, bots: list[Bot],
                    events: list[Event]) -> None:
        rng, names = self.rng, match.names
        tiles = list(range(TILE_COUNT))
        rng.shuffle(tiles)
        size = hand_size(len(names))
        dealt = [tiles[seat * size:(seat + 1) * size] for seat in range(len(names))]
        order = tiles[len(names) * size:]
        number = match.rounds_started + 1
        state = match.start_round(Deal(number, opener, [bits(hand) for hand in dealt], bits(order), order))
        events.append(RoundStart(
            match=match_id, round=number, opener=names[opener],
            hands={name: [_oriented(tile, rng) for tile in hand] for name, hand in zip(names, dealt)},
            stock=[TILES[tile] for tile in order] if self.options.log_stock else None,
        ))
        while not state.is_over:
            seat = state.turn
            player = names[seat]
            if self._fault_pending and rng.random() < 0.1:
                self._inject_move_fault(state, seat, match_id, events)
                continue
            action = bots[seat].choose(state, seat, rng)
            if action[0] == "draw":
                tile = state.next_stock_tile()
                state.draw(seat, TILES[tile])  # type: ignore[index]
                events.append(Draw(match=match_id, player=player, tile=TILES[tile]))  # type: ignore[index]
            elif action[0] == "play":
                _, halves, end = action
                if state.line.is_empty and rng.random() < 0.5:
                    halves = (halves[1], halves[0])
                needs_end = len(set(state.line.placements(halves).values())) > 1
                state.play(seat, halves, end)
                logged_end = end if needs_end or not self.options.omit_optional_end else None
                events.append(Play(match=match_id, player=player, tile=halves, end=logged_end))
            else:
                state.pass_turn(seat)
                events.append(Pass(match=match_id, player=player))
        score = match.settle_round()
        points = dict(zip(names, score.points))
        if self._fault_pending and match.result.decided:
            points[names[0]] += 1
            self._record_fault(match_id, len(events) + 1, "R303")
        events.append(RoundEnd(
            match=match_id, round=number, reason=state.reason,  # type: ignore[arg-type]
            winner=names[score.winner] if score.winner is not None else None,
            points=points,
            hands={name: [TILES[t] for t in members(hand)] for name, hand in zip(names, state.hands)}
            if self.options.reveal_hands else None,
        ))


    def _record_fault(self, match_id: str, index: int, code: str) -> None:
        self.injected.append(InjectedFault(match_id, index, code))
        self._fault_pending = False

    def _inject_move_fault(self, state: Round, seat: int, match_id: str, events: list[Event]) -> None:
        """Replace the seat's move with one illegal move of a known code; the engine carries it on."""
        player = state.names[seat]
        index = len(events) + 1
        if not state.drawing_allowed() and state.stock_left > 0:
            tile = state.next_stock_tile()
            state.apply_draw(seat, tile)  # type: ignore[arg-type]
            events.append(Draw(match=match_id, player=player, tile=TILES[tile]))  # type: ignore[index]
            self._record_fault(match_id, index, "M205")
        elif not state.drawing_allowed() and state.playable(seat):
            state.apply_pass(seat)
            events.append(Pass(match=match_id, player=player))
            self._record_fault(match_id, index, "M208")
        elif state.drawing_allowed() and not state.playable(seat):
            state.apply_pass(seat)
            events.append(Pass(match=match_id, player=player))
            self._record_fault(match_id, index, "M207")
        else:
            others = [tile for other, hand in enumerate(state.hands) if other != seat for tile in members(hand)]
            if not others:
                return
            tile = self.rng.choice(others)
            events.append(Play(match=match_id, player=player, tile=TILES[tile], end="left"))
            self._record_fault(match_id, index, "M202")


def _oriented(tile: int, rng: random.Random) -> tuple[int, int]:
    low, high = TILES[tile]
    return (low, high) if rng.random() < 0.5 else (high, low)


_encoder = msgspec.json.Encoder()


def encode_events(events: Sequence[Event]) -> list[bytes]:
    """Each event as one JSON line (bytes, newline included)."""
    return [_encoder.encode(event) + b"\n" for event in events]


def interleave(matches: Sequence[list[Event]], rng: random.Random) -> list[Event]:
    """Merge several matches' events into one stream, keeping each match's own order."""
    queues = [list(reversed(events)) for events in matches]
    merged: list[Event] = []
    while queues:
        queue = rng.choice(queues)
        merged.append(queue.pop())
        if not queue:
            queues.remove(queue)
    return merged
