"""``drawlog arena``: a schedule of refereed matches between bots, duplicate deals, logs, and resuming.

The schedule is a round robin over every table of ``players`` distinct bots
(a gauntlet: only the tables with that bot). Matches are **duplicate** by
default: each deal is played once per rotation of the seats, so every bot
plays every seat's tiles and the luck of the deal cancels out. Deals come from
the seed and the deal's number only: every table plays the same deals.

Each table's matches go to one log, ``LOGDIR/A-vs-B.jsonl`` (format v1.2),
written whole match by whole match, and listed in ``LOGDIR/results.jsonl``;
``LOGDIR/arena.json`` keeps the settings. Running again with the same
``LOGDIR`` keeps what ``results.jsonl`` lists, drops any other line from the
logs (a match cut short) and plays the rest.

:meth:`Arena.run` calls ``stop(standings)`` after every match: a callable
returning a reason (a string) ends the run early, e.g. a sequential test.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import queue
import shlex
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import msgspec

from ..engine.profiles import PROFILES
from .arena_files import Result, log_name, match_id, parse_id, trim
from .bots import BOTS
from .protocol import PROTOCOL_VERSION, Bye, Hello, HouseRulesInfo, encode
from .referee import BotFailure, BotProcess
from .refereed import Builtin, MatchRecord, Program, Referee, Seat
from .standings import Standings


@dataclass(frozen=True)
class Entrant:
    """A bot in the arena: a built-in one played in process (``builtin``) or a program (``command``)."""

    name: str
    command: tuple[str, ...] = ()
    builtin: str | None = None

    def describe(self) -> str:
        """How the bot is run, for the settings file."""
        return f"builtin {self.builtin}" if self.builtin else shlex.join(self.command)


@dataclass
class ArenaSettings:
    """What an arena plays."""

    entrants: list[Entrant]
    logdir: Path
    matches: int = 100
    variant: str = "draw"
    players: int = 2
    rules: dict[str, int] = field(default_factory=dict)
    time_per_move_ms: int = 1000
    duplicate: bool = True
    gauntlet: str | None = None
    seed: int = 0
    jobs: int = 1

    def key(self) -> dict[str, object]:
        """What must not change between a run and its resumption."""
        return {"variant": self.variant, "players": self.players, "rules": dict(sorted(self.rules.items())),
                "duplicate": self.duplicate, "seed": self.seed, "gauntlet": self.gauntlet,
                "bots": {entrant.name: entrant.describe() for entrant in self.entrants}}


class SettingsChanged(ValueError):
    """``LOGDIR`` holds an arena played with other settings."""


@dataclass(frozen=True)
class Task:
    """One deal of one table: the rotations of the seats still to play."""

    table: tuple[str, ...]
    deal: int
    rotations: tuple[int, ...]


def tables(settings: ArenaSettings) -> list[tuple[str, ...]]:
    """Every table of the schedule (bots in seat order before rotation)."""
    names = [entrant.name for entrant in settings.entrants]
    found = list(itertools.combinations(names, settings.players))
    if settings.gauntlet is not None:
        found = [table for table in found if settings.gauntlet in table]
    return found


def deals_per_table(settings: ArenaSettings) -> int:
    """Deals each table plays: with duplicate matches, ``matches`` rounded up to whole rotations."""
    return math.ceil(settings.matches / settings.players) if settings.duplicate else settings.matches


def schedule(settings: ArenaSettings, done: set[str]) -> list[Task]:
    """The tasks still to play, deal by deal across the tables (so every table advances together)."""
    tasks = []
    players = settings.players
    for deal in range(deals_per_table(settings)):
        for table in tables(settings):
            rotations = range(players) if settings.duplicate else (deal % players,)
            left = tuple(rotation for rotation in rotations if match_id(table, deal, rotation) not in done)
            if left:
                tasks.append(Task(table, deal, left))
    return tasks


class Lineup:
    """The seats a worker plays with: built-in bots, and bot programs started once and restarted after a failure."""

    def __init__(self, settings: ArenaSettings) -> None:
        self.settings = settings
        self.entrants = {entrant.name: entrant for entrant in settings.entrants}
        self.processes: dict[str, BotProcess] = {}
        profile = PROFILES[settings.variant]
        rules = profile.rules_for(settings.players, settings.rules.get("hand"), settings.rules.get("reserve"))
        self.rules = rules
        self.seconds = settings.time_per_move_ms / 1000

    def seat(self, name: str, seed: str) -> Seat | BotFailure:
        """``name``'s seat for a match (a program started if need be), or why its program failed to start."""
        entrant = self.entrants[name]
        if entrant.builtin is not None:
            return Builtin(name, BOTS[entrant.builtin](), seed)
        process = self.processes.get(name)
        if process is None or not process.running:
            if process is not None:
                process.stop(polite=False)  # (reaped: it ended between matches)
            process = BotProcess(name, entrant.command, self.settings.logdir / "bots" / f"{name}.stderr")
            self.processes[name] = process
            rules = self.rules
            try:
                process.start(Hello(protocol=PROTOCOL_VERSION, name=name, variant=self.settings.variant,  # type: ignore
                                    players=self.settings.players,
                                    rules=HouseRulesInfo(hand=rules.hand, reserve=rules.reserve, target=rules.target),
                                    time_per_move_ms=self.settings.time_per_move_ms))
            except BotFailure as failure:
                process.stop(polite=False)
                return failure
        return Program(name, process, self.seconds)

    def play(self, task: Task) -> list[MatchRecord]:
        """Play a task's matches."""
        records = []
        settings = self.settings
        players = settings.players
        deal_seed = f"{settings.seed}/{task.deal}"
        for rotation in task.rotations:
            order = tuple(task.table[(seat + rotation) % players] for seat in range(players))
            ident = match_id(task.table, task.deal, rotation)
            meta: dict[str, object] = {"bots": list(order), "arena": {"deal": task.deal + 1, "rotation": rotation + 1,
                                                                      "seed": settings.seed}}
            seats: list[Seat] = []
            failed: tuple[int, BotFailure] | None = None
            for index, name in enumerate(order):
                seat = self.seat(name, f"{settings.seed}/{ident}/{index}")
                if isinstance(seat, BotFailure):
                    failed = failed or (index, seat)
                    seat = Builtin(name, BOTS["random"](), 0)  # (a stand-in: the match ends before any move)
                seats.append(seat)
            referee = Referee(ident, seats, self.rules, deal_seed, meta)
            records.append(referee.forfeit_at_start(*failed) if failed else referee.play())
        return records

    def close(self) -> None:
        """Say goodbye to every program and stop it."""
        for process in self.processes.values():
            if process.running:
                try:
                    process.send(encode(Bye()), 1.0)
                except BotFailure:
                    pass
            process.stop()
        self.processes.clear()


def _worker(settings: ArenaSettings, tasks: multiprocessing.Queue, results: multiprocessing.Queue) -> None:
    """A worker process: play tasks until the sentinel, then stop its bot programs."""
    lineup = Lineup(settings)
    try:
        while True:
            task = tasks.get()
            if task is None:
                break
            try:
                results.put(("ok", lineup.play(task)))
            except Exception as error:  # noqa: BLE001 - reported to the parent, which stops the run
                results.put(("error", f"{type(error).__name__}: {error}"))
    finally:
        lineup.close()


class Arena:
    """Runs an arena's schedule, writes its logs and results, and keeps the standings."""

    def __init__(self, settings: ArenaSettings) -> None:
        self.settings = settings
        self.standings = Standings([entrant.name for entrant in settings.entrants])
        self.results: list[Result] = []
        self.stopped: str | None = None
        self.kept = 0

    @property
    def total(self) -> int:
        """Matches in the whole schedule."""
        rotations = self.settings.players if self.settings.duplicate else 1
        return len(tables(self.settings)) * deals_per_table(self.settings) * rotations

    # -- resuming --------------------------------------------------------------

    def prepare(self) -> set[str]:
        """Create ``LOGDIR`` or resume it: the matches already finished (their logs trimmed to them)."""
        settings = self.settings
        logdir = settings.logdir
        logdir.mkdir(parents=True, exist_ok=True)
        marker = logdir / "arena.json"
        key = settings.key()
        if marker.exists():
            try:
                before = msgspec.json.decode(marker.read_bytes())
            except msgspec.DecodeError:
                raise SettingsChanged(f"{marker}: not an arena's settings file") from None
            if before != msgspec.json.decode(msgspec.json.encode(key)):
                changed = sorted(name for name in key if before.get(name) != msgspec.to_builtins(key[name]))
                raise SettingsChanged(f"{logdir} holds an arena played with other settings "
                                      f"({', '.join(changed)} differ): use another -o, or the same settings")
        else:
            marker.write_bytes(msgspec.json.format(msgspec.json.encode(key), indent=2) + b"\n")
        done: dict[str, Result] = {}
        listing = logdir / "results.jsonl"
        if listing.exists():
            good = []
            for line in listing.read_bytes().splitlines(keepends=True):
                try:
                    result = msgspec.json.decode(line, type=Result)
                except msgspec.DecodeError:
                    continue  # (a line cut short by an interrupted run)
                done[result.match] = result
                good.append(line if line.endswith(b"\n") else line + b"\n")
            listing.write_bytes(b"".join(good))
        for table in tables(settings):
            trim(logdir / log_name(table), done)
        for result in done.values():
            self._count(result)
        self.kept = len(done)
        return set(done)

    # -- running ---------------------------------------------------------------

    def run(self, on_result: Callable[[Result], None] | None = None,
            stop: Callable[[Standings], str | None] | None = None) -> None:
        """Play what is left of the schedule; ``stop`` may end it early (its reason lands in :attr:`stopped`)."""
        tasks = schedule(self.settings, self.prepare())
        listing = open(self.settings.logdir / "results.jsonl", "ab")  # noqa: SIM115 - closed below
        logs: dict[str, object] = {}
        try:
            for records in self._played(tasks, stop):
                for record in records:
                    result = self._write(record, logs, listing)
                    if on_result is not None:
                        on_result(result)
                if stop is not None and self.stopped is None:
                    self.stopped = stop(self.standings)
        finally:
            for stream in logs.values():
                stream.close()  # type: ignore[attr-defined]
            listing.close()

    def _played(self, tasks: list[Task], stop: object) -> Iterator[list[MatchRecord]]:
        jobs = max(1, min(self.settings.jobs, len(tasks)))
        if jobs == 1:
            lineup = Lineup(self.settings)
            try:
                for task in tasks:
                    if self.stopped is not None:
                        break
                    yield lineup.play(task)
            finally:
                lineup.close()
            return
        context = multiprocessing.get_context("fork")
        todo: multiprocessing.Queue = context.Queue()
        done: multiprocessing.Queue = context.Queue()
        workers = [context.Process(target=_worker, args=(self.settings, todo, done), daemon=True)
                   for _ in range(jobs)]
        for worker in workers:
            worker.start()
        pending = iter(tasks)
        in_flight = 0
        try:
            for task in itertools.islice(pending, 2 * jobs):
                todo.put(task)
                in_flight += 1
            while in_flight:
                try:
                    status, payload = done.get(timeout=1.0)
                except queue.Empty:
                    if not any(worker.is_alive() for worker in workers):
                        raise RuntimeError("every arena worker ended unexpectedly") from None
                    continue
                in_flight -= 1
                if status == "error":
                    raise RuntimeError(payload)
                if self.stopped is None:
                    following = next(pending, None)
                    if following is not None:
                        todo.put(following)
                        in_flight += 1
                yield payload
        finally:
            for _ in workers:
                todo.put(None)
            for worker in workers:
                worker.join(timeout=10)
                if worker.is_alive():
                    worker.terminate()
                    worker.join()

    def _write(self, record: MatchRecord, logs: dict[str, object], listing: object) -> Result:
        table, deal, rotation = parse_id(record.match, self.settings.players)
        name = log_name(table)
        stream = logs.get(name)
        if stream is None:
            stream = logs[name] = open(self.settings.logdir / name, "ab")  # noqa: SIM115 - closed in run()
        stream.write(record.lines)  # type: ignore[attr-defined]
        stream.flush()  # type: ignore[attr-defined]
        forfeit = record.forfeit
        result = Result(match=record.match, file=name, bots=list(record.bots), scores=list(record.scores),
                        winner=record.winner, deal=deal + 1, rotation=rotation + 1,
                        forfeit=forfeit[0] if forfeit else None, reason=forfeit[1] if forfeit else None,
                        detail=forfeit[2] if forfeit else None, codes=record.codes)
        listing.write(msgspec.json.encode(result) + b"\n")  # type: ignore[attr-defined]
        listing.flush()  # type: ignore[attr-defined]
        self._count(result)
        return result

    def _count(self, result: Result) -> None:
        self.results.append(result)
        unit = f"{result.deal}" if self.settings.duplicate else result.match
        self.standings.add(tuple(result.bots), tuple(result.scores), result.winner, result.forfeit, unit,
                           result.reason)


def parse_entrants(bots: Sequence[str], builtins: Sequence[str]) -> list[Entrant]:
    """``--bot NAME=COMMAND`` and ``--builtin NAME`` (or ``--builtin ALIAS=NAME``, to seat a built-in bot against
    itself) as entrants; ValueError names what is wrong."""
    entrants = []
    for given in builtins:
        alias, equals, base = given.partition("=")
        entrants.append(Entrant(alias.strip(), builtin=base.strip() if equals else alias.strip()))
    for given in bots:
        name, equals, command = given.partition("=")
        name = name.strip()
        if not equals or not command.strip():
            raise ValueError(f"{given!r}: give NAME=COMMAND")
        try:
            words = tuple(shlex.split(command))
        except ValueError as error:
            raise ValueError(f"{given!r}: {error}") from None
        entrants.append(Entrant(name, command=words))
    seen: set[str] = set()
    for entrant in entrants:
        if entrant.builtin is not None and entrant.builtin not in BOTS:
            raise ValueError(f"unknown built-in bot {entrant.builtin!r}; choose from {', '.join(BOTS)}")
        if not entrant.name or not all(char.isalnum() or char in "_." for char in entrant.name):
            raise ValueError(f"bot name {entrant.name!r}: use letters, digits, '_' and '.' only")
        if entrant.name in seen:
            raise ValueError(f"two bots are named {entrant.name!r}")
        seen.add(entrant.name)
    return entrants


def settings_data(settings: ArenaSettings) -> dict[str, object]:
    """The settings as plain data (for ``--out``)."""
    data = asdict(settings)
    data["logdir"] = str(settings.logdir)
    return data
