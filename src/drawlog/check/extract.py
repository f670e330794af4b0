"""``drawlog filter``: pick matches out of logs and write each one whole, one after another.

Two passes over each input. The first validates it (a :class:`Validator` with an
:class:`Observer` on its replay) and learns each match's players, tournament,
validity and first ``match_start`` line; the second copies the lines of the
matches chosen into one spool file per match in a temporary folder, so nothing
holds a whole log in memory and interleaved matches come out one after another.
Every ``match_start`` starts a match, as ``validate`` and ``stats`` count them: a
line belongs to a match when it carries the match's id and comes at or after its
``match_start``, at or before the line it ended on (its ``match_end``) and before
the id's next start (F005); other lines (blank, broken, of no known match, of a
match that has ended: F004) are not copied.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from ..errors import InputError
from ..log.events import MatchEnd, MatchStart
from ..log.ids import bounded_id, bounded_ids
from ..log.kept import kept_to_read_again
from ..log.reader import LongLine, Source, read_blocks
from .replay import Observer
from .table import Table
from .validator import Validator
from .violations import Violation

#: Spool files kept open at once (interleaved matches): the least recently written one is closed first.
_OPEN_SPOOLS = 64


class _Tag(msgspec.Struct):
    """The one field the copying pass reads from each line."""

    match: Any = None


_TAG = msgspec.json.Decoder(_Tag)


@dataclass
class MatchInfo:
    """One match of one input: where it starts, who plays, its tournament, whether it is valid."""

    input: int
    id: str
    start: int
    file: str
    players: list[str] = field(default_factory=list)
    tournament: str | None = None
    valid: bool = True
    lines: int = 0
    #: The line the match ended on (its match_end, or its last line when it never ended); None while open.
    end: int | None = None


@dataclass(frozen=True)
class Criteria:
    """What ``filter`` keeps: every given condition must hold (each list: any of its values)."""

    valid: bool | None = None
    players: frozenset[str] = frozenset()
    matches: frozenset[str] = frozenset()
    tournaments: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        # Matches and players are held as bounded keys (drawlog.log.ids): a long id given is compared as one.
        object.__setattr__(self, "players", frozenset(bounded_ids(list(self.players))))
        object.__setattr__(self, "matches", frozenset(bounded_ids(list(self.matches))))
        object.__setattr__(self, "tournaments", frozenset(bounded_ids(list(self.tournaments))))

    def wants(self, info: MatchInfo) -> bool:
        """Whether the match meets every condition."""
        return ((self.valid is None or info.valid == self.valid)
                and (not self.players or not self.players.isdisjoint(info.players))
                and (not self.matches or info.id in self.matches)
                and (not self.tournaments or info.tournament in self.tournaments))


class _Learner(Observer):
    """Hears each match start and end of one input."""

    def __init__(self, found: dict[tuple[int, str, int], MatchInfo], file: str) -> None:
        self.found = found
        self.file = file
        self.input = 0

    def match_started(self, table: Table, event: MatchStart, line: int) -> None:
        # Every match_start starts a match, as validate and stats count them: an id started again (F005)
        # is another match, from its new start on.
        meta = event.meta or {}
        tournament = meta.get("tournament")
        info = self.found[(self.input, table.id, line)] = MatchInfo(
            self.input, table.id, line, self.file,
            tournament=None if tournament is None else bounded_id(str(tournament)))
        info.players.extend(dict.fromkeys(bounded_ids(event.players)))
        table.observed = info

    def match_ended(self, table: Table, claim: MatchEnd | None, line: int) -> None:
        info = table.observed
        if isinstance(info, MatchInfo):
            info.end = line  # a later line of its id is of no match (F004): never copied
            if claim is None or table.errors:
                info.valid = False


class MatchFilter:
    """Chooses matches by :class:`Criteria` (:meth:`decide`), then copies them out (:meth:`spool`).

    ``work`` is a temporary folder this object may fill (spools, and standard
    input kept for the second pass).
    """

    def __init__(self, criteria: Criteria, work: Path) -> None:
        self.criteria = criteria
        self.work = work
        self.validator = Validator()
        self.found: dict[tuple[int, str, int], MatchInfo] = {}
        self.sources: list[Source] = []
        self._starts: dict[tuple[int, str], list[int]] = {}

    def decide(self, inputs: Iterable[Source | InputError]) -> Iterator[Violation]:
        """First pass: validate every input; yields the inputs' F007 (unreadable) violations."""
        learner = _Learner(self.found, "")
        self.validator.replay.observer = learner
        for item in inputs:
            if isinstance(item, InputError):
                yield from (found for found in self.validator.validate_inputs([item]))
                continue
            item = self._kept(item)
            learner.input, learner.file = len(self.sources), item.name
            self.sources.append(item)
            for violation in self.validator.validate_source(item):
                if violation.code == "F007":
                    yield violation

    def chosen(self) -> list[MatchInfo]:
        """The matches kept, in the order their first ``match_start`` came."""
        return sorted((info for info in self.found.values() if self.criteria.wants(info)),
                      key=lambda info: (info.input, info.start))

    def spool(self) -> list[tuple[MatchInfo, Path]]:
        """Second pass: copy every line of the matches kept into a file of its own; each with its file, in order."""
        chosen = self.chosen()
        spools = {(info.input, info.id, info.start): self.work / f"match-{number}.jsonl"
                  for number, info in enumerate(chosen)}
        by_input: dict[int, dict[str, list[MatchInfo]]] = {}
        starts: dict[tuple[int, str], list[int]] = {}
        for info in self.found.values():  # every start of an id, chosen or not: each ends the one before
            starts.setdefault((info.input, info.id), []).append(info.start)
        for info in chosen:
            by_input.setdefault(info.input, {}).setdefault(info.id, []).append(info)
        self._starts = {key: sorted(lines) for key, lines in starts.items()}
        handles: OrderedDict[Path, BinaryIO] = OrderedDict()
        try:
            for index, wanted in sorted(by_input.items()):
                self._copy(self.sources[index], index, wanted, spools, handles)
        finally:
            for handle in handles.values():
                handle.close()
        for path in spools.values():
            path.touch()
        return [(info, spools[(info.input, info.id, info.start)]) for info in chosen]

    def _copy(self, source: Source, index: int, wanted: dict[str, list[MatchInfo]],
              spools: dict[tuple[int, str, int], Path], handles: OrderedDict[Path, BinaryIO]) -> None:
        number = 0
        try:
            blocks = read_blocks(source)
            for block in blocks:
                if isinstance(block, LongLine):
                    number += 1
                    continue
                for raw in block.split(b"\n")[: block.count(b"\n") + (not block.endswith(b"\n"))]:
                    number += 1
                    try:
                        tag = _TAG.decode(raw)
                    except (msgspec.DecodeError, RecursionError):
                        continue
                    infos = wanted.get(bounded_id(tag.match)) if isinstance(tag.match, str) else None
                    if infos is None:
                        continue
                    info = _owner(infos, self._starts[(index, infos[0].id)], number)
                    if info is None or (info.end is not None and number > info.end):
                        continue
                    info.lines += 1
                    _spool_handle(spools[(index, info.id, info.start)], handles).write(raw + b"\n")
        except InputError:
            pass  # reported by the first pass (F007); the lines read before the fault are kept

    def _kept(self, source: Source) -> Source:
        """A source that can be read twice: standard input or a pipe is first copied into ``work``."""
        return kept_to_read_again(source, self.work, len(self.sources))


def _owner(infos: list[MatchInfo], starts: list[int], number: int) -> MatchInfo | None:
    """The chosen match line ``number`` belongs to: the one of the id's last start at or before it (None: the
    line comes before any start, or belongs to a start not chosen)."""
    import bisect

    at = bisect.bisect_right(starts, number) - 1
    if at < 0:
        return None
    return next((info for info in infos if info.start == starts[at]), None)


def _spool_handle(path: Path, handles: OrderedDict[Path, BinaryIO]) -> BinaryIO:
    handle = handles.get(path)
    if handle is not None:
        handles.move_to_end(path)
        return handle
    if len(handles) >= _OPEN_SPOOLS:
        handles.popitem(last=False)[1].close()
    handle = handles[path] = open(path, "ab")  # noqa: SIM115 - closed by the caller
    return handle


#: Characters a split file's name keeps as they are; every other one is ``_`` and its UTF-8 bytes in hex.
_KEPT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-.")
#: The longest name (before ``.jsonl``) a split file gets; a longer one is cut and given a hash.
MAX_NAME = 120
#: The name of the file of matches without a tournament (``--split-by tournament``).
NO_TOURNAMENT = "no-tournament"


def escaped_name(text: str) -> str:
    """A file name for a match id or tournament, one to one: ASCII letters, digits, ``-`` and ``.`` kept (not a
    leading ``.``), every other character ``_`` and the hex of its UTF-8 bytes (``a/b`` → ``a_2Fb``, ``_`` →
    ``_5F``, ``é`` → ``_C3_A9``); the empty text is ``_``."""
    if not text:
        return "_"
    out = []
    for place, char in enumerate(text):
        if char in _KEPT and not (place == 0 and char == "."):
            out.append(char)
        else:
            out.append("".join(f"_{byte:02X}" for byte in char.encode("utf-8", "surrogatepass")))
    return "".join(out)


def _hashed(name: str, key: str | None, room: int) -> str:
    digest = hashlib.sha256(("\0" if key is None else key).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{name[:room]}~{digest}"


def split_names(keys: Iterable[str | None]) -> dict[str | None, str]:
    """A file name (without ``.jsonl``) for each key (a match id, a tournament, None: no tournament), all different.

    Each is :func:`escaped_name` (one to one); one longer than :data:`MAX_NAME` is cut and
    given ``~`` and a hash of the key, and so are names that differ only in case (a
    case-blind file system would merge them) and a tournament named like
    ``no-tournament``. ``~`` never comes out of escaping, so the names stay distinct.
    """
    names: dict[str | None, str] = {}
    for key in dict.fromkeys(keys):
        name = NO_TOURNAMENT if key is None else escaped_name(key)
        names[key] = name if len(name) <= MAX_NAME else _hashed(name, key, MAX_NAME - 17)
    holders: dict[str, list[str | None]] = {}
    for key, name in names.items():
        holders.setdefault(name.casefold(), []).append(key)
    for keys_alike in holders.values():
        if len(keys_alike) > 1:
            for key in keys_alike:
                if key is not None:  # no tournament keeps its name; the others give way
                    names[key] = _hashed(names[key], key, MAX_NAME - 17)
    if len({name.casefold() for name in names.values()}) != len(names):  # 64-bit hashes alike: not met in practice
        raise ValueError("two split files would get the same name")
    return names
