"""``drawlog simulate``."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..errors import WriteFailed
from ..play.bot_names import ANALYSIS_BOT_NAMES, BOT_NAMES
from .app import (
    EXIT_UNUSABLE,
    Variant,
    app,
)


class Players(str, Enum):
    """Table sizes ``simulate`` can play."""

    two = "2"
    three = "3"
    four = "4"
    mixed = "mixed"


def _house_rules(given: list[str]) -> dict[str, int]:
    """``--rules hand=5,reserve=3`` (repeatable) as a dict; a bad key or value is a usage error."""
    from ..play.simulate import RULE_KEYS

    rules: dict[str, int] = {}
    for item in (part.strip() for option in given for part in option.split(",") if part.strip()):
        key, equals, value = item.partition("=")
        key = key.strip()
        value = value.strip()
        if not equals or key not in RULE_KEYS or not (value.isascii() and value.isdigit()):
            raise typer.BadParameter(f"{item!r}: give {' or '.join(f'{name}=N' for name in RULE_KEYS)} "
                                     f"(N a whole number)", param_hint="--rules")
        rules[key] = int(value)
    return rules


def _bot_table(lineup: list[str]) -> dict[str, Callable[[], Any]] | None:
    """The play bots and, when the lineup names one, the analysis's bots (imported only then: they need more)."""
    from ..play.bots import BOTS

    if not set(lineup) & set(ANALYSIS_BOT_NAMES):
        return None
    from ..analysis.bots import ANALYSIS_BOTS

    table: dict[str, Callable[[], Any]] = {**BOTS, **ANALYSIS_BOTS}
    return table


@app.command()
def simulate(
    matches: Annotated[int, typer.Option("--matches", "-n", metavar="N", min=1, help="How many matches.")] = 100,
    players: Annotated[Players, typer.Option(help="Players per match; mixed picks 2, 3 or 4 each time.")]
    = Players.two,
    seed: Annotated[int, typer.Option(metavar="N", help="Random seed: the same seed gives the same bytes.")] = 0,
    output: Annotated[str, typer.Option("--output", "-o", metavar="FILE", help="Log file (.jsonl, .jsonl.gz, .jsonl.zst) or - "
                                                               "for standard output.")] = "-",
    bots: Annotated[str, typer.Option(metavar="BOTS", help=f"Bots by seat, comma-separated, repeated round the table "
                                           f"({', '.join(BOT_NAMES + ANALYSIS_BOT_NAMES)}; expert and "
                                           f"peeker weigh each action with rollouts, peeker "
                                           f"cheats).")] = "random",
    stock: Annotated[bool, typer.Option("--stock/--no-stock", help="Log the stock in draw order.")] = True,
    seq: Annotated[bool, typer.Option("--seq", help="Log seq numbers.")] = False,
    timestamps: Annotated[bool, typer.Option("--timestamps", help="Log RFC 3339 timestamps (ts).")] = False,
    reveal_hands: Annotated[bool, typer.Option("--reveal-hands", help="Log the hands left at round_end.")]
    = False,
    tables: Annotated[int, typer.Option(metavar="N", min=1, help="Tables logged at once: their lines interleave.")] = 1,
    faults: Annotated[float, typer.Option(metavar="SHARE", min=0.0, max=1.0, help="Share of matches given one "
                                                                                  "known violation (0 to 1).")]
    = 0.0,
    faults_file: Annotated[Optional[str], typer.Option(metavar="FILE", help="Where to list injected faults "
                                                            "(match, line, code): a JSON array in a .json file, "
                                                            "else JSON lines; default: OUTPUT.faults.json.")]
    = None,
    match_prefix: Annotated[Optional[str], typer.Option(metavar="PREFIX", help="Match ids are this and a number "
                                                        "(PREFIX000001, …); default: s, the seed and a hash of "
                                                        "the output's name (s7-3fa2-000001), so runs differ.")]
    = None,
    variant: Annotated[Variant, typer.Option(help="The game: Draw, or All Fives (scoring plays, a spinner).")]
    = Variant.draw,
    rules: Annotated[Optional[list[str]], typer.Option(
        "--rules", metavar="KEY=N", help="House rules, comma-separated or repeated: hand=N (tiles dealt to each player), "
                        "reserve=N (Draw only: stock tiles never drawn).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar, no results table.")] = False,
    names: Annotated[Optional[str], typer.Option("--names", metavar="NAMES", help="A roster, comma-separated "
                                                 "(ann,bob,cat,dan): each match's players drawn from it (seeded), "
                                                 "each keeping one bot (--bots dealt round the roster).")] = None,
    pool: Annotated[Optional[int], typer.Option("--pool", metavar="N", min=2, help="A roster of N generated names "
                                                "(ann, bob, … zoe, ann2 …), as --names.")] = None,
) -> None:
    """Play matches with built-in bots on the rules engine and write them in log format v1."""
    from rich.console import Console
    from rich.text import Text

    from ..play.recording import encode_faults, open_output, record
    from ..play.simulate import (
        MAX_ROUNDS,
        EndlessMatches,
        SimulationOptions,
        Simulator,
        check_options,
        default_match_prefix,
        pool_names,
    )
    from ..views.frames import write_output
    from ..views.terminal import shown
    from ..views.writers import quantity, results_table

    lineup = [name.strip() for name in bots.split(",") if name.strip()]
    known = BOT_NAMES + ANALYSIS_BOT_NAMES
    unknown = [name for name in lineup if name not in known]
    if unknown or not lineup:
        raise typer.BadParameter(f"unknown bot {shown(', '.join(unknown)) or '(none)'}; choose from {', '.join(known)}",
                                 param_hint="--bots")
    if faults > 0 and faults_file is None:
        if output == "-":
            raise typer.BadParameter("with --faults and standard output, name the list with --faults-file",
                                     param_hint="--faults-file")
        faults_file = f"{output}.faults.json"
    if faults_file is not None and (faults_file == "-" or Path(faults_file).resolve() == Path(output).resolve()):
        raise typer.BadParameter("the list of faults needs a file of its own, not the log's", param_hint="--faults-file")
    options = SimulationOptions(players=players.value if players is Players.mixed else int(players.value),
                                bots=lineup, log_stock=stock, log_seq=seq, reveal_hands=reveal_hands,
                                fault_rate=faults, variant=variant.value,
                                match_prefix=default_match_prefix(seed, output) if match_prefix is None else match_prefix,
                                rules=_house_rules(rules or []), bot_table=_bot_table(lineup))
    if names is not None and pool is not None:
        raise typer.BadParameter("give --names or --pool, not both", param_hint="--names/--pool")
    if names is not None or pool is not None:
        options.roster = [name.strip() for name in names.split(",") if name.strip()] if names is not None \
            else pool_names(pool or 0)
    try:
        check_options(options)
    except ValueError as error:
        hint = "--names/--pool" if "roster" in str(error) else "--rules"
        raise typer.BadParameter(shown(str(error)), param_hint=hint) from None
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    report = Console(stderr=output == "-")
    progress = Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                        console=Console(stderr=True), transient=True,
                        disable=quiet or not Console(stderr=True).is_terminal)
    simulator = Simulator(seed, options)
    try:
        with progress, open_output(output) as stream:
            task = progress.add_task("simulate", total=matches)
            tally = record(simulator, matches, stream, tables=tables, timestamps=timestamps,
                           seed=seed, on_match=lambda: progress.advance(task))
    except OSError as error:
        raise WriteFailed(output, error) from None
    except EndlessMatches as error:
        typer.echo(f"Error: {error}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None
    if faults_file is not None:
        listed = encode_faults(tally.faults, as_array=faults_file.lower().endswith(".json"))
        write_output(faults_file, lambda listing: listing.write(listed))
    if not quiet:
        results = results_table(tally.matches, tally.rows())
        if options.roster:
            results.columns[0].header = "player (bot)"
        report.print(results)
        if simulator.abandoned:
            undecided = quantity(simulator.abandoned, "deal", "deals")
            report.print(Text(f"{undecided} of a match undecided after {MAX_ROUNDS:,} rounds played again from the "
                              f"start (not logged)"), soft_wrap=True)
        if faults_file is not None:
            report.print(Text(f"{quantity(len(tally.faults), 'fault')} injected, listed in {shown(faults_file)}"),
                         soft_wrap=True)
