"""Walk logged matches and weigh every decision of their legal prefix.

Each input is first validated (:class:`~drawlog.check.validator.Validator`,
the same as ``drawlog validate``) to find each match's first error; the
match's events (decoded by :mod:`drawlog.log.events`) are then replayed on the
engine's :class:`~drawlog.engine.match.Match` up to that line, and the
analysis says where it stopped. Warnings do not stop it, nor does a missing
``match_end`` (``F006``: the match is analysed as far as it was logged).

Along the way, unless ``luck`` is off, the luck of every deal and every draw
is valued for every player (:mod:`.luck`), and each settled round's result
(``round_end``) recorded.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from ..check.validator import Validator
from ..check.walkthrough import numbered_blocks
from ..engine.match import Match
from ..engine.profiles import PROFILES, house_rules
from ..engine.rounds import Round
from ..engine.tiles import TILES, tile_id
from ..errors import InputError
from ..log.events import AnyEvent, Draw, MatchEnd, MatchStart, Pass, Play, RoundEnd, RoundStart
from ..log.reader import LongLine, Source, expand_paths, read_blocks
from .actions import DRAW_ACTION, find_action, legal_actions
from .decisions import Decision, decision_seed, variant_of, weigh
from .luck import LuckValue, RoundResult, deal_luck, draw_luck, luck_seed, round_results
from .sampler import SamplingError, VoidTracker

_DECODER = msgspec.json.Decoder(AnyEvent)


@dataclass(frozen=True)
class Stop:
    """Where the analysis of a match stopped: the first error (``file:line``, code and message)."""

    file: str
    line: int
    code: str
    message: str


@dataclass
class MatchAnalysis:
    """The decisions of one match's legal prefix; ``stop`` when an error cut it short.

    ``luck``: every deal's and draw's luck for every player (:mod:`.luck`);
    ``results``: every player's result in each settled round.
    """

    file: str
    match: str
    variant: str
    players: tuple[str, ...]
    decisions: list[Decision] = field(default_factory=list)
    stop: Stop | None = None
    finished: bool = False
    luck: list[LuckValue] = field(default_factory=list)
    results: list[RoundResult] = field(default_factory=list)


@dataclass(frozen=True)
class WalkOptions:
    """What a walk weighs: ``samples`` deals per decision, the ``seed``; luck (with ``luck_samples``
    rollouts per deal and per candidate tile, ``samples`` when None) and decisions, each may be left out."""

    samples: int
    seed: int
    luck: bool = True
    decisions: bool = True
    luck_samples: int | None = None


class _MatchWalk:
    """One match being replayed: the engine's match and round, the voids, the ply."""

    def __init__(self, analysis: MatchAnalysis, match: Match | None, stop: Stop | None, options: WalkOptions) -> None:
        self.analysis = analysis
        self.match = match
        self.stop = stop
        self.samples = options.samples
        self.seed = options.seed
        self.luck = options.luck
        self.decisions = options.decisions
        self.luck_samples = options.luck_samples or options.samples
        self.state: Round | None = None
        self.voids = VoidTracker(len(analysis.players))
        self.ply = 0
        self.done = match is None

    def feed(self, event: AnyEvent, line: int) -> None:
        """Replay one event of this match (nothing once the match ended or stopped)."""
        if self.done:
            return
        if self.stop is not None and line >= self.stop.line:
            self.analysis.stop = self.stop
            self.done = True
            return
        match = self.match
        assert match is not None
        if isinstance(event, RoundStart):
            _, self.state = match.deal_round(event.round, event.opener, event.hands, event.stock)
            self.voids = VoidTracker(match.players)
            self.ply = 0
            if self.luck:
                self._value(self.state, line, "deal", None)
        elif isinstance(event, (Play, Draw, Pass)):
            self._move(event, line)
        elif isinstance(event, RoundEnd):
            if match.round_open:
                state = match.round
                points = match.settle_round().points
                if state is not None and state.is_over:
                    self._settled(state, points, line)
            self.state = None
        elif isinstance(event, MatchEnd):
            self.analysis.finished = True
            self.done = True

    def _move(self, event: Play | Draw | Pass, line: int) -> None:
        state = self.state
        if state is None or state.is_over or state.names[state.turn] != event.player:
            self._stopped(line, "the move cannot be replayed here", "replay")
            return
        seat = state.turn
        self.ply += 1
        kind = "play" if isinstance(event, Play) else "draw" if isinstance(event, Draw) else "pass"
        if kind != "pass" and self.decisions:
            self._weigh(state, seat, event, kind, line)
        if kind == "draw" and self.luck:
            self._value(state, line, "draw", tile_id(event.tile))  # type: ignore[union-attr]
        self.voids.before_move(state, seat, kind)
        if isinstance(event, Play):
            faults = state.try_play(seat, event.tile, event.end)
        elif isinstance(event, Draw):
            faults = state.try_draw(seat, event.tile)
        else:
            faults = state.try_pass(seat)
        if faults:
            self._stopped(line, faults[0].message, faults[0].code)

    def _weigh(self, state: Round, seat: int, event: Play | Draw | Pass, kind: str, line: int) -> None:
        actions = legal_actions(state, seat)
        if len(actions) < 2:
            return
        if isinstance(event, Play):
            taken = find_action(state, actions, tile_id(event.tile), event.end)
        else:
            taken = actions.index(DRAW_ACTION) if DRAW_ACTION in actions else None
        if taken is None:
            return
        analysis = self.analysis
        rng = decision_seed(self.seed, analysis.match, state.number, self.ply)
        try:
            figures, table = weigh(state, seat, actions, taken, self.voids.excluded, self.samples, rng)
        except SamplingError as error:  # knowledge no deal fits: a fault the validator did not name
            self._stopped(line, f"no deal fits what {event.player} could know ({error})", "sampler")
            return
        analysis.decisions.append(Decision(
            file=analysis.file, match=analysis.match, round=state.number, ply=self.ply, line=line,
            player=state.names[seat], variant=variant_of(state), actions=table, **figures))  # type: ignore[arg-type]

    def _value(self, state: Round, line: int, kind: str, tile: int | None) -> None:
        """Record the luck of the deal just made (``tile`` None) or of the draw of ``tile`` about to be made."""
        analysis = self.analysis
        rng = luck_seed(self.seed, analysis.match, state.number, line)
        if tile is None:
            values, label, drawer = deal_luck(state, self.luck_samples, rng, self.seed), None, None
        else:
            values = draw_luck(state, tile, self.luck_samples, rng)
            label, drawer = _tile_label(tile), state.names[state.turn]
        variant = variant_of(state)
        analysis.luck.extend(LuckValue(analysis.file, analysis.match, state.number, line, name, variant, kind,
                                       label, drawer, value) for name, value in zip(state.names, values))

    def _settled(self, state: Round, points: tuple[int, ...], line: int) -> None:
        analysis = self.analysis
        variant = variant_of(state)
        analysis.results.extend(RoundResult(analysis.file, analysis.match, state.number, line, name, variant, value)
                                for name, value in zip(state.names, round_results(points)))

    def _stopped(self, line: int, message: str, code: str) -> None:
        self.analysis.stop = Stop(self.analysis.file, line, code, message)
        self.done = True


def first_errors(source: Source) -> dict[str, Stop]:
    """Each match's first error in ``source`` (``F006``, a missing ``match_end``, is not one here)."""
    found: dict[str, Stop] = {}
    for violation in Validator().validate_source(source):
        if violation.severity != "error" or violation.code == "F006" or violation.match is None \
                or violation.line is None:
            continue
        known = found.get(violation.match)
        if known is None or violation.line < known.line:
            found[violation.match] = Stop(violation.file, violation.line, violation.code, violation.message)
    return found


def _events(source: Source) -> Iterator[tuple[int, AnyEvent]]:
    """Each event of ``source`` with its line; a line the typed decoder refuses is read as the validator reads it
    (an unknown field ignored), or skipped."""
    lenient = Validator()
    for first, block, count in numbered_blocks(source):
        for offset, raw in enumerate(block.split(b"\n")[:count]):
            try:
                yield first + offset, _DECODER.decode(raw)
            except (msgspec.DecodeError, msgspec.ValidationError):
                event = lenient.decode_line(raw, first + offset)
                for _ in lenient.reporter.flush():  # its W401 or F002 belongs to validate, not here
                    pass
                if event is not None:
                    yield first + offset, event


def analyze_source(source: Source, samples: int, seed: int, only: str | None = None, luck: bool = True,
                   decisions: bool = True, luck_samples: int | None = None) -> Iterator[MatchAnalysis]:
    """The analysis of each match in one input (``only``: that match id alone), in the order they end.

    ``luck`` False leaves the luck of deals and draws out, ``decisions`` False
    the weighing of decisions (the round results are always recorded);
    ``luck_samples``: the rollouts of each luck valuation (default ``samples``).
    """
    options = WalkOptions(samples, seed, luck, decisions, luck_samples)
    for _, analysis in walk_source(source, options, only):
        yield analysis


def walk_source(source: Source, options: WalkOptions, only: str | None = None,
                wanted: frozenset[str] | None = None) -> Iterator[tuple[tuple[int, int], MatchAnalysis]]:
    """:func:`analyze_source`'s analyses (of the matches in ``wanted`` alone, when given), each with its place in
    the input's order: ``(0, line)`` when its replay ended at that line, ``(1, line)`` for a match still open at
    the input's end (``line``: its start). :mod:`~drawlog.analysis.parallel` joins groups of matches by it."""
    stops = first_errors(source)
    walks: dict[str, tuple[int, _MatchWalk]] = {}
    for line, event in _events(source):
        if only is not None and event.match != only or wanted is not None and event.match not in wanted:
            continue
        if isinstance(event, MatchStart):
            if event.match not in walks:  # F005: a second start; the first is what is analysed
                walks[event.match] = (line, _start(source.name, event, stops.get(event.match), options))
            continue
        started = walks.get(event.match)
        if started is None or started[1].done:
            continue
        walk = started[1]
        walk.feed(event, line)
        if walk.done:
            yield (0, line), walk.analysis
    for start, walk in walks.values():
        if not walk.done:
            yield (1, start), walk.analysis


def _start(file: str, event: MatchStart, stop: Stop | None, options: WalkOptions) -> _MatchWalk:
    players = tuple(event.players)
    analysis = MatchAnalysis(file, event.match, event.variant, players)
    hand, reserve = event.rules.given() if event.rules is not None else (None, None)
    _, rules = house_rules(PROFILES[event.variant], len(players), hand, reserve, event.target)
    if rules is None or len(set(players)) != len(players) or not 2 <= len(players) <= 4:
        analysis.stop = stop or Stop(file, 0, "S101", "the match cannot be replayed")
        return _MatchWalk(analysis, None, stop, options)
    return _MatchWalk(analysis, Match(players, rules=rules), stop, options)


def analyze_paths(paths: Iterable[str], samples: int, seed: int, only: str | None = None, luck: bool = True,
                  decisions: bool = True, luck_samples: int | None = None) -> Iterator[MatchAnalysis | InputError]:
    """The analysis of every match in ``paths`` (files, folders, ``-``); an unreadable input as its error.

    Each input is read twice (validated, then replayed): standard input is
    first copied to a temporary file.
    """
    for item in expand_paths(list(paths)):
        if isinstance(item, InputError):
            yield item
            continue
        try:
            if item.path is None and item.url is None:
                with tempfile.TemporaryDirectory(prefix="drawlog-analyze-") as folder:
                    yield from analyze_source(_spooled(item, Path(folder) / "input.jsonl"), samples, seed, only,
                                              luck, decisions, luck_samples)
            else:
                yield from analyze_source(item, samples, seed, only, luck, decisions, luck_samples)
        except InputError as error:
            yield error


def _tile_label(tile: int) -> str:
    low, high = TILES[tile]
    return f"[{low}|{high}]"


def _spooled(source: Source, path: Path) -> Source:
    """``source`` (standard input) copied, decompressed, to ``path``; a line too long is kept as a blank line."""
    with open(path, "wb") as handle:
        handle.writelines(b"\n" if isinstance(block, LongLine) else block for block in read_blocks(source))
    return Source(source.name, path)


__all__ = ["MatchAnalysis", "Stop", "WalkOptions", "analyze_paths", "analyze_source", "first_errors", "walk_source"]
