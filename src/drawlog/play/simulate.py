"""Simulated matches: bots choose among the engine's legal actions, the engine applies them.

The simulator has no rules of its own: legality comes from
:meth:`Round.legal_plays`, :meth:`Round.can_draw` and :meth:`Round.can_pass`,
and every action goes through the engine's checked ``draw`` / ``play`` /
``pass_turn``. Same seed, same events. With ``fault_rate`` a
:class:`~drawlog.faults.FaultPlan` puts one known violation into some matches.

``variant`` picks the game (Draw, or All Fives with its scoring plays, each
``play`` logging the ``points`` it scored) and ``rules`` a house deal (``hand``,
and ``reserve`` in Draw); both are logged in ``match_start`` only when they
differ from the standard.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import msgspec

from ..engine.allfives import FivesRound
from ..engine.match import MAX_PLAYERS, MIN_PLAYERS, Deal, Match
from ..engine.profiles import PROFILES, GameRules, differences, house_rules
from ..engine.rounds import Round
from ..engine.tiles import TILE_COUNT, TILES, bits, members
from ..log.events import (
    Draw,
    Event,
    HouseRules,
    MatchEnd,
    MatchStart,
    Pass,
    Play,
    RoundEnd,
    RoundStart,
)
from .bots import BOTS, Bot
from .faults import Defective, FaultPlan, InjectedFault, kinds_for

#: A line of a simulated log: an event, or an event written with a deliberate defect.
LogItem = Event | Defective


@dataclass
class SimulationOptions:
    """What is simulated and what the logs include."""

    players: int | str = 2  # 2, 3, 4 or "mixed"
    bots: Sequence[str] = ("random",)
    log_stock: bool = True
    log_seq: bool = False
    reveal_hands: bool = False
    omit_optional_end: bool = True
    match_prefix: str = "m"
    fault_rate: float = 0.0
    meta: dict[str, object] | None = None
    #: The game: ``"draw"`` or ``"all-fives"``.
    variant: str = "draw"
    #: House rules: ``hand`` (tiles dealt to each player) and, in Draw, ``reserve``; the standard when left out.
    rules: Mapping[str, int] | None = None
    #: The bots by name (default: :data:`~drawlog.play.bots.BOTS`); ``drawlog simulate`` adds the analysis's bots.
    bot_table: Mapping[str, Callable[[], Bot]] | None = None
    #: Players drawn into each match (seeded), each keeping one bot (``bots`` dealt round the roster); None: seats
    #: ``p1``, ``p2`` … with ``bots`` by seat.
    roster: Sequence[str] | None = None


#: The names ``--pool N`` gives, in order; past them, ``ann2``, ``bob2`` …
POOL_NAMES = ("ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "lea", "max", "ned",
              "oli", "pam", "quy", "rex", "sam", "tia", "uma", "vic", "wes", "xia", "yan", "zoe")


def pool_names(count: int) -> list[str]:
    """``count`` distinct player names: ``ann``, ``bob`` … ``zoe``, then ``ann2`` … (for ``simulate --pool N``)."""
    return [POOL_NAMES[index % len(POOL_NAMES)] + (str(index // len(POOL_NAMES) + 1) if index >= len(POOL_NAMES)
                                                   else "") for index in range(count)]


def default_match_prefix(seed: int, output: str) -> str:
    """The match ids' prefix of a run that names none: the seed and a hash of the output's file name (``s7-3fa2-``).

    Runs with other seeds or other file names get other ids, so their logs can
    be validated together; the same seed and file name give the same bytes, in
    any folder.
    """
    name = output.replace("\\", "/").rsplit("/", 1)[-1]
    digest = hashlib.blake2b(f"{seed}\0{name}".encode("utf-8", "surrogateescape"), digest_size=2).hexdigest()
    return f"s{seed}-{digest}-"


#: The house rules a simulation may set.
RULE_KEYS = ("hand", "reserve")
#: Rounds after which an undecided match is dealt again, and how many deals in a row may be undecided.
MAX_ROUNDS = 1000
MAX_ATTEMPTS = 5


class EndlessMatches(RuntimeError):
    """Matches that never reach the target under these settings (All Fives scores can drift below zero)."""


def check_options(options: SimulationOptions) -> None:
    """Raise ``ValueError`` when the variant or house rules cannot be played at every table size asked for."""
    profile = PROFILES.get(options.variant)
    if profile is None:
        raise ValueError(f"unknown variant {options.variant!r}; choose from {', '.join(PROFILES)}")
    rules = dict(options.rules or {})
    unknown = [key for key in rules if key not in RULE_KEYS]
    if unknown:
        raise ValueError(f"unknown house rule {', '.join(unknown)}; choose from {', '.join(RULE_KEYS)}")
    if "reserve" in rules and profile.reserve == 0:
        raise ValueError(f"{profile.title} has no reserve: every tile of the boneyard may be drawn")
    if rules.get("hand", 1) < 1 or rules.get("reserve", 0) < 0:
        raise ValueError("hand must be at least 1 and reserve at least 0")
    sizes = range(MIN_PLAYERS, MAX_PLAYERS + 1) if options.players == "mixed" else (int(options.players),)
    if options.roster is not None:
        roster = list(options.roster)
        twice = sorted({name for name in roster if roster.count(name) > 1})
        if twice or not all(name.strip() for name in roster):
            raise ValueError(f"the roster names {', '.join(map(repr, twice))} twice" if twice
                             else "the roster has an empty name")
        if len(roster) < max(sizes):
            raise ValueError(f"a roster of {len(roster)} cannot fill a table of {max(sizes)}: name at least "
                             f"{max(sizes)} players")
    for players in sizes:
        faults, _ = house_rules(profile, players, rules.get("hand"), rules.get("reserve"), None)
        for fault in faults:
            if fault.code == "S101":
                raise ValueError(fault.message)


def _logged_rules(rules: GameRules, players: int) -> HouseRules | None:
    """The ``rules`` object for ``match_start``: the keys that differ from the standard, or None."""
    changed = {setting: value for setting, value, _ in differences(rules, players) if setting in RULE_KEYS}
    return HouseRules(**changed) if changed else None


@dataclass(frozen=True)
class MatchOutcome:
    """Who played a finished match and how it ended (for the results table).

    ``bots``: the bot of each seat, or with a roster each seat's player and bot (``ann (greedy)``).
    """

    bots: tuple[str, ...]
    scores: tuple[int, ...]
    winner: int | None


class Simulator:
    """Plays matches and returns their log lines (event structs, or defective ones when faults are on)."""

    def __init__(self, seed: int, options: SimulationOptions | None = None) -> None:
        self.rng = random.Random(seed)
        self.options = options or SimulationOptions()
        check_options(self.options)
        self.profile = PROFILES[self.options.variant]
        self.faults = FaultPlan(self.rng, self.options.fault_rate, kinds_for(self.options.variant))
        #: The outcome of the last match played.
        self.outcome: MatchOutcome | None = None
        #: Matches dealt again because no score reached the target in ``MAX_ROUNDS`` rounds.
        self.abandoned = 0

    @property
    def injected(self) -> list[InjectedFault]:
        """Faults injected so far, at most one per match."""
        return self.faults.injected

    def matches(self, count: int) -> Iterator[list[LogItem]]:
        """``count`` complete matches, each as its list of log lines."""
        for index in range(count):
            yield self.match(f"{self.options.match_prefix}{index + 1:06d}")

    def match(self, match_id: str) -> list[LogItem]:
        """One complete match.

        All Fives scores can drift below zero round after round (small hands,
        many players, weak bots) so that no one reaches the target: a match not
        decided after ``MAX_ROUNDS`` rounds is dealt again from the start
        (counted in ``abandoned``), and :class:`EndlessMatches` is raised when
        ``MAX_ATTEMPTS`` in a row are not.
        """
        rng, options = self.rng, self.options
        players = options.players if options.players != "mixed" else rng.choice((2, 3, 4))
        if options.roster:  # players drawn from the roster, each with their own bot
            lineup = rng.sample(range(len(options.roster)), int(players))
            names = tuple(options.roster[index] for index in lineup)
        else:
            lineup = list(range(int(players)))
            names = tuple(f"p{seat + 1}" for seat in lineup)
        table = options.bot_table if options.bot_table is not None else BOTS
        bots = [table[options.bots[index % len(options.bots)]]() for index in lineup]
        meta = {**(options.meta or {}), "bots": [bot.name for bot in bots]}
        for _ in range(MAX_ATTEMPTS):
            events = self._play_match(match_id, names, bots, meta)
            if events is not None:
                return events
            self.abandoned += 1
            self.injected[:] = [fault for fault in self.injected if fault.match != match_id]
        raise EndlessMatches(f"{len(names)}-player {self.profile.title} matches of {', '.join(bot.name for bot in bots)} "
                             f"with {self.profile.rules_for(len(names), *self._house()).hand} tiles each reach "
                             f"no target: {MAX_ATTEMPTS} deals in a row were undecided after {MAX_ROUNDS:,} rounds")

    def _house(self) -> tuple[int | None, int | None]:
        house = self.options.rules or {}
        return house.get("hand"), house.get("reserve")

    def _play_match(self, match_id: str, names: tuple[str, ...], bots: list[Bot],
                    meta: dict[str, object]) -> list[LogItem] | None:
        """The match's lines, or None when it is not decided after ``MAX_ROUNDS`` rounds."""
        rng, options = self.rng, self.options
        self.faults.start_match(match_id, options.log_seq)
        profile = self.profile
        rules = profile.rules_for(len(names), *self._house())
        start = MatchStart(match=match_id, players=list(names), variant=profile.name,  # type: ignore[arg-type]
                           rules=_logged_rules(rules, len(names)), meta=meta)
        events: list[LogItem] = [start]
        match = Match(names, rules=rules)
        opener = rng.randrange(len(names))
        while not match.result.decided:
            if match.rounds_started == MAX_ROUNDS:
                return None
            if match.rounds_started:
                expected = match.expected_opener()
                opener = self.faults.opener(expected, len(names), len(events) + 1) if expected is not None \
                    else rng.randrange(len(names))
            self._play_round(match, match_id, opener, bots, events)
        scores = dict(zip(names, match.scores))
        winner = names[match.result.winner] if match.result.winner is not None else None
        self.faults.final_claims(names, scores, len(events) + 1)
        events.append(MatchEnd(match=match_id, scores=scores, winner=winner))
        played_by = tuple(f"{name} ({bot.name})" for name, bot in zip(names, bots)) if options.roster \
            else tuple(bot.name for bot in bots)  # with a roster, results per player
        self.outcome = MatchOutcome(played_by, tuple(match.scores), match.result.winner)
        if options.log_seq:
            events = _numbered(events, self.faults.seq_gaps(match_id))
        return events

    def _play_round(self, match: Match, match_id: str, opener: int, bots: list[Bot],
                    events: list[LogItem]) -> None:
        rng, names, faults = self.rng, match.names, self.faults
        tiles = list(range(TILE_COUNT))
        rng.shuffle(tiles)
        size = match.rules.hand
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
            injected = faults.move(state, seat, match_id, len(events) + 1) if faults.pending else None
            if injected is not None:
                events.append(injected)
                continue
            event = self._move(state, seat, bots[seat], match_id)
            if faults.pending:
                extra = faults.extra_line(event, len(events) + 1)
                if extra is not None:
                    events.append(extra)
                events.append(faults.defect(event, len(events) + 1))
            else:
                events.append(event)
        score = match.settle_round()
        points = dict(zip(names, score.end_points))
        winner = names[score.winner] if score.winner is not None else None
        if faults.pending:
            winner = faults.round_claims(names, winner, points, len(events) + 1)
        events.append(RoundEnd(
            match=match_id, round=number, reason=state.reason,  # type: ignore[arg-type]
            winner=winner, points=points,
            hands={name: [TILES[t] for t in members(hand)] for name, hand in zip(names, state.hands)}
            if self.options.reveal_hands else None,
        ))

    def _move(self, state: Round, seat: int, bot: Bot, match_id: str) -> Event:
        """Let the bot act through the engine's checked actions; the event to log."""
        player = state.names[seat]
        action = bot.choose(state, seat, self.rng)
        if action[0] == "draw":
            next_tile = state.next_stock_tile()
            assert next_tile is not None, "the simulator always knows the stock order"
            tile = TILES[next_tile]
            state.draw(seat, tile)
            return Draw(match=match_id, player=player, tile=tile)
        if action[0] == "play":
            _, halves, end = action
            if state.line.is_empty and self.rng.random() < 0.5:
                halves = (halves[1], halves[0])
            if isinstance(state, FivesRound):
                needed = not state.tableau.is_empty and len(state.tableau.ends_for(halves)) > 1
            else:
                needed = state.line.resolve(halves) is None
            state.play(seat, halves, end)
            return Play(match=match_id, player=player, tile=halves,
                        end=end if needed or not self.options.omit_optional_end else None,
                        points=state.last_points if isinstance(state, FivesRound) else None)
        state.pass_turn(seat)
        return Pass(match=match_id, player=player)


def _numbered(events: list[LogItem], gaps: set[int]) -> list[LogItem]:
    """Give each event its ``seq`` (1, 2, 3 …), skipping a number before each index in ``gaps``."""
    numbered: list[LogItem] = []
    seq = 0
    for index, item in enumerate(events, 1):
        if isinstance(item, Defective) and item.tile is not None:
            numbered.append(item)  # an extra, broken line takes no number
            continue
        seq += 2 if index in gaps else 1
        if isinstance(item, Defective):
            numbered.append(msgspec.structs.replace(item, event=msgspec.structs.replace(item.event, seq=seq)))
        else:
            numbered.append(msgspec.structs.replace(item, seq=seq))
    return numbered


def _oriented(tile: int, rng: random.Random) -> tuple[int, int]:
    low, high = TILES[tile]
    return (low, high) if rng.random() < 0.5 else (high, low)


_encoder = msgspec.json.Encoder()


def encode_item(item: LogItem) -> bytes:
    """One log line as JSON bytes, newline included."""
    if isinstance(item, Defective):
        return item.encode() + b"\n"
    return _encoder.encode(item) + b"\n"


def encode_events(events: Sequence[LogItem]) -> list[bytes]:
    """Each log item as one JSON line (bytes, newline included)."""
    return [encode_item(item) for item in events]


def interleave(matches: Sequence[list[LogItem]], rng: random.Random) -> list[LogItem]:
    """Merge several matches' lines into one stream, keeping each match's own order."""
    queues = [list(reversed(events)) for events in matches]
    merged: list[LogItem] = []
    while queues:
        queue = rng.choice(queues)
        merged.append(queue.pop())
        if not queue:
            queues.remove(queue)
    return merged
