"""``drawlog fix``: a copy of a log whose *claims* are rewritten from the replay.

The claims are what a log says of results, never the moves: a ``round_end``'s
``winner``, ``points`` and revealed ``hands`` (R302, R303, R304), a
``match_end``'s ``scores`` and ``winner`` (R306), and an All Fives ``play``'s
``points`` (R308). :func:`fix_lines` replays the log with an
:class:`~drawlog.check.observer.Observer` that notes, on each claim's line, what
the replay gives instead; each such line is rewritten in place (the other
fields, their order and spacing, kept: only the values of the wrong fields are
replaced), every other line is left byte for byte. The fixed log is replayed
again until it has nothing left to fix (a fixed claim may change how a fault
elsewhere in its round is read), and what it still holds is counted by code:
structural faults (R301, R305, R307) and move violations are not fixed.
"""

from __future__ import annotations

import gzip
import os
import stat
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..engine.rounds import Round
from ..engine.tiles import TILES, tile_id
from ..errors import Fault
from ..log.events import Draw, MatchEnd, MatchStart, Pass, Play, RoundEnd
from ..log.ids import MAX_ID, bounded_id
from ..log.reader import BOM, LongLine, Source, read_blocks
from ..log.rewrite import Unreadable, field_spans, rewrite
from .observer import Observer
from .rules import SEVERITY, WARNING
from .table import Table
from .validator import Validator

#: The codes of the claims ``fix`` rewrites.
FIXED_CODES: Final = ("R302", "R303", "R304", "R306", "R308")
#: The most replays of a log being fixed (each after rewriting what the one before found).
MAX_PASSES: Final = 6


class CannotFix(Exception):
    """The log cannot be fixed as asked (a line too long to copy): exit 2."""


@dataclass
class Change:
    """One claim rewritten: where, which field, what the log claimed and what the replay gives."""

    file: str
    line: int
    match: str
    round: int | None
    event: str
    field: str
    code: str
    claimed: Any
    recomputed: Any

    def as_dict(self) -> dict[str, Any]:
        """The change as a JSON object."""
        return {"file": self.file, "line": self.line, "match": self.match, "round": self.round,
                "event": self.event, "field": self.field, "code": self.code, "claimed": self.claimed,
                "recomputed": self.recomputed}


@dataclass
class FixResult:
    """What :func:`fix_lines` did: the fixed lines, the changes, and the errors left (by code)."""

    lines: list[bytes]
    changes: list[Change]
    left: Counter[str] = field(default_factory=Counter)
    passes: int = 0

    @property
    def unfixed_claims(self) -> Counter[str]:
        """Claim faults the fixed log still holds (none, unless a claim cannot be said right: a forfeit of a
        name that is not a player)."""
        return Counter({code: count for code, count in self.left.items() if code in FIXED_CODES})

    @property
    def left_alone(self) -> Counter[str]:
        """The errors fix does not touch (structure, moves, lines), by code."""
        return Counter({code: count for code, count in self.left.items() if code not in FIXED_CODES})


# -- what the replay gives -----------------------------------------------------


class _Edit:
    """The fields to rewrite on one line: ``{field: (code, claimed, recomputed)}``."""

    __slots__ = ("match", "round", "event", "fields")

    def __init__(self, match: str, round_number: int | None, event: str) -> None:
        self.match = match
        self.round = round_number
        self.event = event
        self.fields: dict[str, tuple[str, Any, Any]] = {}


class _Claims(Observer):
    """Notes every claim the replay disagrees with, by line."""

    def __init__(self) -> None:
        self.edits: dict[int, _Edit] = {}

    def _edit(self, line: int, table: Table, round_number: int | None, event: str) -> _Edit:
        edit = self.edits.get(line)
        if edit is None:
            edit = self.edits[line] = _Edit(table.id, round_number, event)
        return edit

    def match_started(self, table: Table, event: MatchStart, line: int) -> None:
        # The replay holds a name over MAX_ID characters as its bounded key (drawlog.check.names): a claim put
        # right is written with the whole name, as logged.
        long_names = {bounded_id(name): name for name in event.players if len(name) > MAX_ID}
        table.observed = long_names or None

    def moved(self, table: Table, state: Round, seat: int, event: Draw | Play | Pass, line: int,
              could_play: bool, faults: tuple[Fault, ...]) -> None:
        if type(event) is not Play or event.points is None:
            return
        if any(fault.impossible for fault in faults):  # not placed: its claim is not checked
            return
        if event.points != state.last_points:
            self._edit(line, table, state.number, "play").fields["points"] = ("R308", event.points,
                                                                             state.last_points)

    def round_settled(self, table: Table, state: Round, claim: RoundEnd | None, line: int) -> None:
        match = table.match
        if claim is None or match is None:
            return
        names, seat_of = match.names, match.seat_of
        if state.is_over:
            score = state.score()
            winner = names[score.winner] if score.winner is not None else None
            if claim.winner != winner:
                self._edit(line, table, state.number, "round_end").fields["winner"] = ("R302", claim.winner,
                                                                                _whole(table, winner))
            points = _per_player(claim.points, names, seat_of, score.end_points)
            if points is not None:
                self._edit(line, table, state.number, "round_end").fields["points"] = ("R303", claim.points,
                                                                                _whole(table, points))
        if claim.hands is not None:
            hands = _hands(claim.hands, seat_of, state.hands)
            if hands is not None:
                self._edit(line, table, state.number, "round_end").fields["hands"] = (
                    "R304", {name: [list(tile) for tile in tiles] for name, tiles in claim.hands.items()},
                    _whole(table, hands))

    def match_ended(self, table: Table, claim: MatchEnd | None, line: int) -> None:
        match = table.match
        if claim is None or match is None:
            return
        names, seat_of = match.names, match.seat_of
        number = table.round_number()
        scores = _per_player(claim.scores, names, seat_of, match.scores)
        if scores is not None:
            self._edit(line, table, number, "match_end").fields["scores"] = ("R306", claim.scores,
                                                                          _whole(table, scores))
        forfeit = claim.forfeit.player if claim.forfeit is not None else None
        if forfeit is not None and forfeit not in seat_of:
            return  # R306 that no winner mends: the forfeit names someone not playing
        result = match.result  # (a forfeit's result once its claims were checked)
        if forfeit is not None or result.decided:
            winner = names[result.winner] if result.winner is not None else None
            if claim.winner != winner:
                self._edit(line, table, number, "match_end").fields["winner"] = ("R306", claim.winner,
                                                                              _whole(table, winner))


def _whole(table: Table, value: Any) -> Any:
    """``value`` (a name, or a dict by name) with each bounded key of a long player name as the whole name."""
    names: dict[str, str] | None = table.observed
    if not names:
        return value
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, dict):
        return {names.get(key, key): item for key, item in value.items()}
    return value


def _per_player(claimed: Mapping[str, int], names: Sequence[str], seat_of: Mapping[str, int],
                right: Sequence[int]) -> dict[str, int] | None:
    """The claimed ``{player: number}`` put right (None when it is right): the claim's order kept, names that are
    not players dropped, a player left out added (in seat order) only when their number is not 0."""
    if len(claimed) == len(names) and all(claimed.get(name) == right[seat] for seat, name in enumerate(names)):
        return None
    if all(name in seat_of for name in claimed) and all(
            claimed.get(name, 0) == right[seat] for seat, name in enumerate(names)):
        return None
    fixed = {name: right[seat_of[name]] for name in claimed if name in seat_of}
    for seat, name in enumerate(names):
        if name not in fixed and right[seat] != 0:
            fixed[name] = right[seat]
    return fixed


def _hands(claimed: Mapping[str, Sequence[Sequence[int]]], seat_of: Mapping[str, int],
           held: Sequence[int]) -> dict[str, list[list[int]]] | None:
    """The revealed hands put right (None when they are): names not playing dropped; each player's tiles that
    are held kept as written, in order, once; the held tiles left out added, lowest first."""
    wrong = False
    fixed: dict[str, list[list[int]]] = {}
    for name, tiles in claimed.items():
        seat = seat_of.get(name)
        if seat is None:
            wrong = True
            continue
        kept: list[list[int]] = []
        shown = 0
        for tile in tiles:
            halves = (tile[0], tile[1])
            bit = 1 << tile_id(halves)
            if held[seat] & bit and not shown & bit:
                kept.append(list(halves))
                shown |= bit
            else:
                wrong = True
        missing = held[seat] & ~shown
        if missing:
            wrong = True
            kept += [list(TILES[tile]) for tile in range(len(TILES)) if missing >> tile & 1]
        fixed[name] = kept
    return fixed if wrong else None


# -- fixing ----------------------------------------------------------------------


def _replay(lines: list[bytes], file: str) -> tuple[_Claims, Counter[str]]:
    """Replay ``lines``: the claims to rewrite, and the errors found (by code)."""
    validator = Validator(max_per_match=None, max_per_line=1 << 30)
    claims = _Claims()
    validator.replay.observer = claims
    left: Counter[str] = Counter()
    for violation in validator.validate_lines(lines, file):
        if SEVERITY[violation.code] != WARNING:
            left[violation.code] += 1
    return claims, left


def fix_lines(lines: Iterable[bytes], file: str = "<input>") -> FixResult:
    """Fix the claims of a log held as its lines (bytes, without their newlines)."""
    original = list(lines)
    current = list(original)
    merged: dict[tuple[int, str], Change] = {}
    passes = 0
    while True:
        claims, left = _replay(current, file)
        passes += 1
        if not claims.edits or passes > MAX_PASSES:
            break
        for number, edit in sorted(claims.edits.items()):
            raw = current[number - 1]
            try:
                current[number - 1] = rewrite(raw, {name: value for name, (_, _, value) in edit.fields.items()})
            except (Unreadable, ValueError):
                continue
            for name, (code, claimed, value) in edit.fields.items():
                key = (number, name)
                before = merged.get(key)
                if before is None:
                    merged[key] = Change(file, number, edit.match, edit.round, edit.event, name, code,
                                         _plain(claimed), value)
                else:
                    before.recomputed = value
    changes = [change for _, change in sorted(merged.items(), key=lambda item: item[0])
               if change.claimed != change.recomputed]
    kept = {change.line for change in changes}
    for number in {number for number, _ in merged} - kept:  # rewritten, then back to what it claimed: as it was
        current[number - 1] = original[number - 1]
    return FixResult(current, changes, left, passes)


def _plain(value: Any) -> Any:
    """A decoded claim as plain JSON values (tiles as lists)."""
    if isinstance(value, dict):
        return {name: _plain(item) for name, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


@dataclass
class LogText:
    """A log read whole: its lines (without newlines), whether the last one ended with a newline, and whether
    the text began with a UTF-8 byte order mark (read from a file: standard input's is not known)."""

    lines: list[bytes]
    final_newline: bool
    bom: bool = False

    def data(self, lines: list[bytes] | None = None) -> Iterable[bytes]:
        """The text again, in pieces, from ``lines`` (these lines by default)."""
        lines = self.lines if lines is None else lines
        if self.bom:
            yield BOM
        for index, line in enumerate(lines):
            yield line
            if index + 1 < len(lines) or self.final_newline:
                yield b"\n"


def read_log(source: Source) -> LogText:
    """Read a log whole (plain, gzip, zstd or standard input, as ``validate`` reads it); an unreadable one raises
    :class:`~drawlog.errors.InputError`, a line too long to copy :class:`CannotFix`."""
    lines: list[bytes] = []
    final_newline = True
    number = 0
    for block in read_blocks(source):
        if isinstance(block, LongLine):
            number += 1
            raise CannotFix(f"line {number:,} of {source.name} is {block.length:,} bytes long, over the limit a "
                            f"line is read to: fix cannot copy it")
        parts = block.split(b"\n")
        final_newline = block.endswith(b"\n")
        if final_newline:
            parts.pop()
        lines += parts
        number += len(parts)
    return LogText(lines, final_newline, _bom_first(source))


def _bom_first(source: Source) -> bool:
    """Whether a log file's text starts with a UTF-8 byte order mark (which the reader drops: it is put back)."""
    if source.path is None or source.url is not None:
        return False
    name = source.path.name.lower()
    try:
        if name.endswith(".gz"):
            with gzip.open(source.path, "rb") as packed:
                return packed.read(len(BOM)) == BOM
        if name.endswith(".zst"):
            import zstandard

            with open(source.path, "rb") as raw, zstandard.ZstdDecompressor().stream_reader(raw) as unpacked:
                return unpacked.read(len(BOM)) == BOM
        if not stat.S_ISREG(os.stat(source.path).st_mode):  # a pipe cannot be read again
            return False
        with open(source.path, "rb") as plain:
            return plain.read(len(BOM)) == BOM
    except Exception:  # noqa: BLE001 - the reader read it whole already: a mark not found is no mark
        return False


__all__ = ["FIXED_CODES", "CannotFix", "Change", "FixResult", "LogText", "fix_lines", "read_log"]
