"""``drawlog arena``: bots play each other under the referee; logs, a crosstable and ratings."""

from __future__ import annotations

import math
import sys
import time
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..play.bot_names import BOT_NAMES
from .app import EXIT_INTERRUPTED, EXIT_UNUSABLE, Variant, app

if TYPE_CHECKING:
    from rich.table import Table


class TableSize(str, Enum):
    """Players at each table."""

    two = "2"
    three = "3"
    four = "4"


def _signed(value: float) -> str:
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:+.0f}".replace("-", "−")


def _house_rules(given: list[str], keys: tuple[str, ...]) -> dict[str, int]:
    """``--rules hand=5,reserve=3`` (repeatable) as a dict; a bad key or value is a usage error."""
    rules: dict[str, int] = {}
    for item in (part.strip() for option in given for part in option.split(",") if part.strip()):
        key, equals, value = (text.strip() for text in item.partition("="))
        if not equals or key not in keys or not (value.isascii() and value.isdigit()):
            raise typer.BadParameter(f"{item!r}: give {' or '.join(f'{name}=N' for name in keys)} "
                                     f"(N a whole number)", param_hint="--rules")
        rules[key] = int(value)
    return rules


#: Beyond this many bots the crosstable leaves out the columns per opponent (``--out`` has them all).
MAX_OPPONENT_COLUMNS = 6


def crosstable(data: dict[str, Any], title: str) -> Table:
    """The standings (``Standings.as_data()``) as a rich table: rating with its 95 % interval, then each opponent."""
    from rich.table import Table

    from ..views.terminal import shown

    rows = data["bots"]
    table = Table(title=title, title_justify="left")
    table.add_column("bot", no_wrap=True)
    for column in ("Elo", "95 % interval", "matches", "won", "forfeits"):
        table.add_column(column, justify="right", no_wrap=column != "95 % interval")
    names = [row["bot"] for row in rows] if len(rows) <= MAX_OPPONENT_COLUMNS else []
    for number, _ in enumerate(names, 1):
        table.add_column(f"vs {number}", justify="right", no_wrap=True)
    for number, row in enumerate(rows, 1):
        low, high = row["elo_low"], row["elo_high"]
        interval = f"{_signed(low)}…{_signed(high)}" if low is not None else "-"
        cells = []
        for name in names:
            cell = row["against"].get(name)
            games = cell["wins"] + cell["draws"] + cell["losses"] if cell else 0
            cells.append(f"{(cell['wins'] + cell['draws'] / 2) / games:.0%}" if games else "")
        table.add_row(f"{number}. {shown(row['bot'])}" if names else shown(row["bot"]), _signed(row["elo"]),
                      interval, f"{row['matches']:,}", f"{row['wins']:,}", f"{sum(row['forfeits'].values()):,}",
                      *cells)
    return table


@app.command()
def arena(
    output: Annotated[str, typer.Option("--output", "-o", metavar="LOGDIR",
                                        help="Folder of the logs (one per table), results.jsonl and the bots' "
                                             "standard error; run again with the same folder to resume.")],
    bot: Annotated[list[str] | None, typer.Option(
        "--bot", metavar="NAME=COMMAND", help="A bot program speaking the drawlog bot protocol "
                                              "(docs/bot-protocol.md); repeatable.")] = None,
    builtin: Annotated[list[str] | None, typer.Option(
        "--builtin", metavar="NAME", help=f"A built-in bot played in process ({', '.join(BOT_NAMES)}), or "
                                          f"ALIAS=NAME for a second one of the same; repeatable.")] = None,
    matches: Annotated[int, typer.Option("--matches", "-n", metavar="N", min=1,
                                         help="Matches per table (with duplicate matches, rounded up to whole "
                                              "rotations of the seats).")] = 100,
    variant: Annotated[Variant, typer.Option(help="The game.")] = Variant.draw,
    players: Annotated[TableSize, typer.Option(help="Players at each table.")] = TableSize.two,
    rules: Annotated[list[str] | None, typer.Option(
        "--rules", metavar="KEY=N", help="House rules: hand=N, reserve=N (Draw only).")] = None,
    time_per_move: Annotated[int, typer.Option("--time-per-move", metavar="MS", min=1,
                                               help="Time a bot program has for a move, in milliseconds.")] = 1000,
    jobs: Annotated[int, typer.Option("--jobs", "-j", metavar="N", min=1, help="Worker processes.")] = 1,
    gauntlet: Annotated[str | None, typer.Option(metavar="NAME", help="Only the tables with this bot.")] = None,
    duplicate: Annotated[bool, typer.Option("--duplicate/--no-duplicate",
                                            help="Play every deal once per rotation of the seats.")] = True,
    seed: Annotated[int, typer.Option(metavar="N", help="Seed of the deals.")] = 0,
    out: Annotated[str | None, typer.Option("--out", metavar="STATS",
                                               help="Write the standings as JSON to this file.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the final table.")] = False,
    sprt: Annotated[str | None, typer.Option(
        "--sprt", metavar="ELO0,ELO1", help="Stop when a sequential probability ratio test decides whether the "
                                            "first bot is ELO1 Elo stronger than the second (H1) or no more than "
                                            "ELO0 (H0); two bots, two-player tables; --matches is the most "
                                            "played.")] = None,
    alpha: Annotated[float, typer.Option(metavar="A", help="--sprt: the chance of accepting H1 wrongly.")] = 0.05,
    beta: Annotated[float, typer.Option(metavar="B", help="--sprt: the chance of accepting H0 wrongly.")] = 0.05,
) -> None:
    """Referee matches between bots: a round robin (or gauntlet) of duplicate matches, logged in format v1.2."""
    from ..play.arena import Arena, ArenaSettings, SettingsChanged, parse_entrants, tables
    from ..play.simulate import RULE_KEYS, EndlessMatches, SimulationOptions, check_options

    try:
        entrants = parse_entrants(bot or [], builtin or [])
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--bot/--builtin") from None
    size = int(players.value)
    if len(entrants) < size:
        raise typer.BadParameter(f"{size}-player tables need at least {size} bots; {len(entrants)} given",
                                 param_hint="--bot/--builtin")
    if gauntlet is not None and gauntlet not in {entrant.name for entrant in entrants}:
        raise typer.BadParameter(f"{gauntlet!r} is not one of the bots", param_hint="--gauntlet")
    house = _house_rules(rules or [], RULE_KEYS)
    try:
        check_options(SimulationOptions(players=size, variant=variant.value, rules=house))
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--rules") from None
    test = _sprt_test(sprt, alpha, beta, [entrant.name for entrant in entrants], size)
    settings = ArenaSettings(entrants, Path(output), matches=matches, variant=variant.value, players=size,
                             rules=house, time_per_move_ms=time_per_move, duplicate=duplicate, gauntlet=gauntlet,
                             seed=seed, jobs=jobs)
    contest = Arena(settings)
    title = (f"arena: {variant.value}, {size} players, {len(tables(settings))} tables, "
             f"{'duplicate' if duplicate else 'single'} deals")
    started = time.monotonic()
    try:
        _run(contest, title, quiet, None if test is None else test.stop)
    except SettingsChanged as error:
        typer.echo(f"Error: {error}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None
    except (EndlessMatches, RuntimeError) as error:
        typer.echo(f"Error: {error}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None
    except OSError as error:
        typer.echo(f"Error: {output}: {error.strerror or error}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None
    except KeyboardInterrupt:
        typer.echo(f"Interrupted: {contest.standings.matches:,} finished matches are kept in {output}; run the "
                   f"same command again to play the rest.", err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    seconds = time.monotonic() - started
    played = contest.standings.matches - contest.kept
    data = contest.standings.as_data()
    from rich.console import Console

    console = Console()
    console.print(crosstable(data, f"{title}: {contest.standings.matches:,} matches"))
    forfeits = [result for result in contest.results if result.reason is not None]
    for result in forfeits[:10]:
        console.print(f"forfeit: {result.match}: {result.bots[result.forfeit]} ({result.reason}): "  # type: ignore
                      f"{result.detail}", markup=False, highlight=False, soft_wrap=True)
    if len(forfeits) > 10:
        console.print(f"… {len(forfeits) - 10:,} more forfeits in {output}/results.jsonl", markup=False,
                      soft_wrap=True)
    if test is not None:
        console.print(test.verdict(contest.standings), markup=False, highlight=False, soft_wrap=True)
    kept = f"; {contest.kept:,} kept from an earlier run" if contest.kept else ""
    rate = f" ({played / seconds:,.1f} matches/s)" if seconds > 0 and played else ""
    console.print(f"{played:,} matches played in {seconds:.1f} s{rate}{kept}; logs in {output}", markup=False,
                  highlight=False)
    if out is not None:
        import msgspec

        from ..play.arena import settings_data

        document = {"settings": settings_data(settings), "stopped": contest.stopped, **data}
        if test is not None:
            document["sprt"] = test.as_data(contest.standings)
        try:
            Path(out).write_bytes(msgspec.json.format(msgspec.json.encode(document), indent=2) + b"\n")
        except OSError as error:
            typer.echo(f"Error: cannot write {out}: {error.strerror or error}", err=True)
            raise typer.Exit(EXIT_UNUSABLE) from None


class _SprtTest:
    """``--sprt``: the test of the first bot against the second, read from the standings after each deal."""

    def __init__(self, test: Any, first: str, second: str) -> None:
        self.test, self.first, self.second = test, first, second
        self.decision: str | None = None

    def stop(self, standings: Any) -> str | None:
        """The reason to stop once the test has decided (what :meth:`Arena.run` takes as ``stop``)."""
        self.decision = self.test.update(*standings.record(self.first, self.second))
        return None if self.decision is None else f"SPRT accepted {self.decision}"

    def verdict(self, standings: Any) -> str:
        """The test's outcome in words, with its counts and log-likelihood ratio."""
        wins, draws, losses = standings.record(self.first, self.second)
        decision = self.test.update(wins, draws, losses)
        lower, upper = self.test.bounds
        counts = (f"{self.first} against {self.second}: {wins:,} won, {draws:,} drawn, {losses:,} lost; "
                  f"LLR {self.test.llr:.2f}, bounds {lower:.2f} and {upper:.2f}")
        if decision == "H1":
            return f"SPRT accepted H1: {self.first} is at least {self.test.elo1:g} Elo stronger ({counts})"
        if decision == "H0":
            return f"SPRT accepted H0: {self.first} is no more than {self.test.elo0:g} Elo stronger ({counts})"
        return f"SPRT undecided: play more matches (--matches) ({counts})"

    def as_data(self, standings: Any) -> dict[str, Any]:
        """The test for ``--out``: its settings, the counts, the ratio and the decision (null: undecided)."""
        wins, draws, losses = standings.record(self.first, self.second)
        decision = self.test.update(wins, draws, losses)
        return {"first": self.first, "second": self.second, "elo0": self.test.elo0, "elo1": self.test.elo1,
                "alpha": self.test.alpha, "beta": self.test.beta, "wins": wins, "draws": draws, "losses": losses,
                "llr": self.test.llr, "bounds": list(self.test.bounds), "decision": decision}


def _sprt_test(given: str | None, alpha: float, beta: float, names: list[str], size: int) -> _SprtTest | None:
    """The ``--sprt`` test, or a clear error for what it cannot test."""
    if given is None:
        return None
    from ..play.sprt import Sprt

    if len(names) != 2 or size != 2:
        raise typer.BadParameter(f"the test compares two bots at two-player tables; {len(names)} bots at "
                                 f"{size}-player tables given", param_hint="--sprt")
    try:
        elo0, elo1 = (float(part) for part in given.split(","))
        test = Sprt(elo0, elo1, alpha, beta)
    except ValueError as error:
        why = str(error) if "must" in str(error) else f"give ELO0,ELO1 such as 0,50 (got {given!r})"
        raise typer.BadParameter(why, param_hint="--sprt/--alpha/--beta") from None
    return _SprtTest(test, names[0], names[1])


def _run(contest: Any, title: str, quiet: bool, stop: Any = None) -> None:
    """Run the arena with a live table on a terminal, progress lines otherwise (nothing with ``quiet``)."""
    total = contest.total
    if quiet:
        contest.run(stop=stop)
        return
    if not sys.stdout.isatty():
        step = max(1, total // 10)

        def report(result: Any) -> None:
            count = contest.standings.matches
            if count % step == 0 or count == total:
                leader = contest.standings.ranked()[0]
                print(f"{count:,}/{total:,} matches; leading: {leader} "
                      f"({_signed(contest.standings.rating(leader)[0])} Elo)", flush=True)

        contest.run(on_result=report, stop=stop)
        return
    from rich.console import Group
    from rich.live import Live
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    progress = Progress(TextColumn("playing"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    task = progress.add_task("arena", total=total)
    shown = [0.0]
    with Live(Group(progress), refresh_per_second=4, transient=True) as live:
        def update(result: Any) -> None:
            progress.update(task, completed=contest.standings.matches)
            now = time.monotonic()
            if now - shown[0] > 0.5:
                shown[0] = now
                live.update(Group(crosstable(contest.standings.as_data(), title), progress))

        contest.run(on_result=update, stop=stop)
