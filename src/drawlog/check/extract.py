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

The copying pass reads every input, whether a match of it is kept or not, and
counts each line once in an :class:`~drawlog.check.filters.Account`: in a match
kept or dropped (by the first condition it failed), outside any match, blank or
invalid. ``--dedupe`` is decided there too: each match kept so far is hashed
(BLAKE2b, 128 bits) over its lines without ``match``, ``seq`` and ``ts``, and
only its digest is kept once it ends; the first of the matches with one digest
stays.
"""

from __future__ import annotations

import bisect
import hashlib
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from ..engine.rounds import Round
from ..errors import Fault, InputError
from ..log.events import Draw, MatchEnd, MatchStart, Pass, Play, RoundEnd, RoundStart
from ..log.ids import bounded_id, bounded_ids
from ..log.kept import kept_to_read_again
from ..log.reader import LongLine, Source, read_blocks
from .filters import Account, Criteria, MatchFacts
from .observer import Observer
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
    #: Lines of the match counted in the copying pass (every match's, kept or not).
    lines: int = 0
    #: The line the match ended on (its match_end, or its last line when it never ended); None while open.
    end: int | None = None
    facts: MatchFacts = field(default_factory=MatchFacts)
    #: The first condition the match failed (see :meth:`Criteria.dropped_by`); None: kept.
    dropped: str | None = None
    #: With ``--dedupe``: the digest of the match's content (see :func:`_content`), once copied.
    digest: bytes | None = None


class _Learner(Observer):
    """Hears each match start and end of one input."""

    def __init__(self, found: dict[tuple[int, str, int], MatchInfo], file: str) -> None:
        self.found = found
        self.file = file
        self.input = 0
        #: Each id's starts in the input being read, in order (to put a violation in its match).
        self.starts: dict[str, list[MatchInfo]] = {}

    def match_started(self, table: Table, event: MatchStart, line: int) -> None:
        # Every match_start starts a match, as validate and stats count them: an id started again (F005)
        # is another match, from its new start on.
        meta = event.meta or {}
        tournament = meta.get("tournament")
        info = self.found[(self.input, table.id, line)] = MatchInfo(
            self.input, table.id, line, self.file,
            tournament=None if tournament is None else bounded_id(str(tournament)))
        info.players.extend(dict.fromkeys(bounded_ids(event.players)))
        info.facts.variant = event.variant
        info.facts.ts = event.ts
        self.starts.setdefault(table.id, []).append(info)
        table.observed = info

    def match_ended(self, table: Table, claim: MatchEnd | None, line: int) -> None:
        info = table.observed
        if isinstance(info, MatchInfo):
            info.end = line  # a later line of its id is of no match (F004): never copied
            if claim is None or table.errors:
                info.valid = False
            facts, match = info.facts, table.match
            if match is not None:
                facts.rounds = match.rounds_started
                result = match.result
                # As stats' matches.winner: a winner only for a finished match.
                if claim is not None and result is not None and result.winner is not None:
                    facts.winner = match.names[result.winner]
            if claim is not None:
                facts.claimed_winner = claim.winner
                facts.forfeit = claim.forfeit is not None
                if facts.ts is None:
                    facts.ts = claim.ts

    def owner(self, match_id: str | None, line: int | None) -> MatchInfo | None:
        """The match of this input a violation of ``match_id`` at ``line`` belongs to: the id's last start at or
        before the line (the last start when the line is unknown)."""
        infos = self.starts.get(match_id) if match_id is not None else None
        if not infos:
            return None
        if line is None:
            return infos[-1]
        at = bisect.bisect_right([info.start for info in infos], line) - 1
        return infos[at] if at >= 0 else None


class _TimedLearner(_Learner):
    """A learner that also keeps a match's first ``ts`` when its match_start has none (``--since/--until``)."""

    def round_started(self, table: Table, event: RoundStart, line: int) -> None:
        self._timed(table, event.ts)

    def moved(self, table: Table, state: Round, seat: int, event: Draw | Play | Pass, line: int,
              could_play: bool, faults: tuple[Fault, ...]) -> None:
        self._timed(table, event.ts)

    def round_settled(self, table: Table, state: Round, claim: RoundEnd | None, line: int) -> None:
        self._timed(table, claim.ts if claim is not None else None)

    @staticmethod
    def _timed(table: Table, ts: datetime | None) -> None:
        info = table.observed
        if ts is not None and isinstance(info, MatchInfo) and info.facts.ts is None:
            info.facts.ts = ts


class MatchFilter:
    """Chooses matches by :class:`Criteria` (:meth:`decide`), then copies them out (:meth:`spool`).

    ``work`` is a temporary folder this object may fill (spools, and standard
    input kept for the second pass). :attr:`account` counts every line read by the copying pass.
    """

    def __init__(self, criteria: Criteria, work: Path) -> None:
        self.criteria = criteria
        self.work = work
        # Every violation of a match is needed to choose by --code: no cap per match then.
        self.validator = Validator(max_per_match=None) if criteria.codes else Validator()
        self.found: dict[tuple[int, str, int], MatchInfo] = {}
        self.sources: list[Source] = []
        self.account = Account()

    def decide(self, inputs: Iterable[Source | InputError]) -> Iterator[Violation]:
        """First pass: validate every input; yields the inputs' F007 (unreadable) violations."""
        timed = self.criteria.since is not None or self.criteria.until is not None
        learner = (_TimedLearner if timed else _Learner)(self.found, "")
        self.validator.replay.observer = learner
        codes = bool(self.criteria.codes)
        for item in inputs:
            if isinstance(item, InputError):
                yield from (found for found in self.validator.validate_inputs([item]))
                continue
            item = self._kept(item)
            learner.input, learner.file = len(self.sources), item.name
            learner.starts = {}
            self.sources.append(item)
            for violation in self.validator.validate_source(item):
                if violation.code == "F007":
                    yield violation
                elif codes:
                    info = learner.owner(violation.match, violation.line)
                    if info is not None:
                        info.facts.codes.add(violation.code)
        for info in self.found.values():
            info.dropped = self.criteria.dropped_by(info.facts, info.valid, info.id, info.players, info.tournament)

    def chosen(self) -> list[MatchInfo]:
        """The matches that meet every condition but ``--dedupe``, in the order their ``match_start`` came."""
        return sorted((info for info in self.found.values() if info.dropped is None),
                      key=lambda info: (info.input, info.start))

    def spool(self) -> list[tuple[MatchInfo, Path]]:
        """Second pass: count every line of every input (:attr:`account`) and copy every line of the matches
        kept into a file of its own; each kept match with its file, in order."""
        chosen = self.chosen()
        spools = {(info.input, info.id, info.start): self.work / f"match-{number}.jsonl"
                  for number, info in enumerate(chosen)}
        by_input: dict[int, dict[str, list[MatchInfo]]] = {}
        for info in sorted(self.found.values(), key=lambda info: (info.input, info.start)):
            by_input.setdefault(info.input, {}).setdefault(info.id, []).append(info)
        handles: OrderedDict[Path, BinaryIO] = OrderedDict()
        try:
            for index, source in enumerate(self.sources):
                self._copy(source, by_input.get(index, {}), spools, handles)
        finally:
            for handle in handles.values():
                handle.close()
        kept: list[tuple[MatchInfo, Path]] = []
        seen: set[bytes] = set()
        for info in chosen:
            path = spools[(info.input, info.id, info.start)]
            if self.criteria.dedupe:
                if info.digest in seen:
                    info.dropped = "--dedupe"
                    path.unlink(missing_ok=True)
                    continue
                seen.add(info.digest or b"")
            path.touch()
            kept.append((info, path))
        account = self.account
        for info in sorted(self.found.values(), key=lambda info: (info.input, info.start)):
            if info.dropped is None:
                account.kept_matches += 1
                account.kept_lines += info.lines
            else:
                account.drop(info.dropped, info.lines)
        return kept

    def _copy(self, source: Source, wanted: dict[str, list[MatchInfo]],
              spools: dict[tuple[int, str, int], Path], handles: OrderedDict[Path, BinaryIO]) -> None:
        account = self.account
        dedupe = self.criteria.dedupe
        hashers: dict[int, Any] = {}
        starts = {match_id: [info.start for info in infos] for match_id, infos in wanted.items()}
        number = 0
        try:
            blocks = read_blocks(source)
            for block in blocks:
                if isinstance(block, LongLine):
                    number += 1
                    account.invalid += 1
                    continue
                for raw in block.split(b"\n")[: block.count(b"\n") + (not block.endswith(b"\n"))]:
                    number += 1
                    if not raw.strip():
                        account.blank += 1
                        continue
                    try:
                        tag = _TAG.decode(raw)
                    except (msgspec.DecodeError, RecursionError):
                        account.invalid += 1
                        continue
                    key = bounded_id(tag.match) if isinstance(tag.match, str) else None
                    infos = wanted.get(key) if key is not None else None
                    info = _owner(infos, starts[key], number) if infos is not None and key is not None else None
                    if info is None or (info.end is not None and number > info.end):
                        account.outside += 1
                        continue
                    info.lines += 1
                    if info.dropped is not None:
                        continue
                    _spool_handle(spools[(info.input, info.id, info.start)], handles).write(raw + b"\n")
                    if dedupe:
                        hasher = hashers.get(id(info))
                        if hasher is None:
                            hasher = hashers[id(info)] = hashlib.blake2b(digest_size=16)
                        hasher.update(_content(raw))
                        if number == info.end:  # finished: only its digest is kept
                            info.digest = hashers.pop(id(info)).digest()
        except InputError:
            pass  # reported by the first pass (F007); the lines read before the fault are kept
        finally:
            account.lines += number
            for infos in wanted.values():
                for info in infos:
                    hasher = hashers.pop(id(info), None)
                    if hasher is not None:
                        info.digest = hasher.digest()

    def _kept(self, source: Source) -> Source:
        """A source that can be read twice: standard input or a pipe is first copied into ``work``."""
        return kept_to_read_again(source, self.work, len(self.sources))


def _content(raw: bytes) -> bytes:
    """What ``--dedupe`` compares of a line: its JSON with ``match``, ``seq`` and ``ts`` left out, keys sorted
    (so a log read twice, or uploaded again under new ids and times, gives the same digests)."""
    try:
        value = msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return raw + b"\n"
    if isinstance(value, dict):
        for name in ("match", "seq", "ts"):
            value.pop(name, None)
    return msgspec.json.encode(value, order="sorted") + b"\n"


def _owner(infos: list[MatchInfo], starts: list[int], number: int) -> MatchInfo | None:
    """The match line ``number`` of its id belongs to: the one of the id's last start at or before it (None:
    the line comes before any start)."""
    at = bisect.bisect_right(starts, number) - 1
    return infos[at] if at >= 0 else None


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
