"""``drawlog players``, ``ratings``, ``h2h`` and ``seats``: the analyst's views of the statistics tables.

Each reads a folder written by ``drawlog stats`` (never the logs), merges
players' aliases (``--alias FILE`` or ``[tool.drawlog] aliases``), and writes
like ``query``: a text table, csv, json, jsonl or parquet (``-f``/``-o``).
The computations are pure functions of :mod:`drawlog.tables` (``reports``,
``h2h``, ``history``, ``seats``, ``periods``, ``aliases``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .app import EXIT_UNUSABLE, _settings, app
from .table_output import (
    FrameFormatOption,
    FrameOutputOption,
    IncludeInvalidOption,
    VariantOption,
    _frame_command,
)

FolderArgument = Annotated[str, typer.Argument(metavar="DIR", help="A folder (or a URL: s3://…, file://…) written by "
                                                                   "`drawlog stats` or `drawlog audit`.")]

#: ``--alias`` of ``players``, ``ratings``, ``h2h`` and ``seats``.
AliasOption = Annotated[str | None, typer.Option(
    "--alias", metavar="FILE", help="Merge players' names: a TOML or JSON file mapping each canonical name to a list "
                                    "of its aliases (default: [tool.drawlog] aliases, if set).")]
#: ``--by`` periods of ``players`` and ``ratings``.
PERIOD_HELP = "day, week (Monday to Sunday, UTC) or month of the matches' ts (no ts: undated)"


def _aliases(alias_file: str | None) -> dict[str, str]:
    """The aliases to merge: ``--alias FILE``, else the configuration's ``aliases``; an unusable file exits 2."""
    from ..tables.aliases import AliasError, load_aliases
    from ..views.terminal import shown

    path: str | Path | None = alias_file
    if path is None:
        settings = _settings(None, False)
        if settings.aliases is not None:
            base = settings.path.parent if settings.path is not None else Path()
            path = base / settings.aliases
    if path is None:
        return {}
    try:
        return load_aliases(path)
    except AliasError as error:
        typer.echo(f"Error: {shown(str(error))}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None


#: The columns of ``players`` without ``--all`` (after the keys).
SHORT_COLUMNS = ("matches", "match_wins", "win_share", "rating", "rating_sigma")


@app.command()
def players(
    folder: FolderArgument,
    by: Annotated[str | None, typer.Option(metavar="COLUMN", help="Also group by this matches column (tournament, "
                                                   f"table_name, file), or by {PERIOD_HELP}.")] = None,
    sort: Annotated[str, typer.Option(metavar="COLUMN", help="Sort by this column, best first (names A to Z).")] = "rating",
    reverse: Annotated[bool, typer.Option("--reverse", help="Sort the other way.")] = False,
    every_column: Annotated[bool, typer.Option("--all", help="Every column: rounds won by domino and by block, points, "
                                                            "draws, passes, violations …")] = False,
    variant: VariantOption = None,
    include_invalid: IncludeInvalidOption = False,
    alias: AliasOption = None,
    output_format: FrameFormatOption = None,
    output: FrameOutputOption = None,
) -> None:
    """A leaderboard per player and variant: one ranking per game, with the rating ± its sigma.

    Short by default (player, variant, rank, matches, match_wins, win_share,
    rating, rating_sigma); --all adds how they win, draw and break rules.
    Results and ratings count valid finished matches (--include-invalid: the
    invalid ones too); invalid_matches says how many of the player's finished
    matches had errors.
    """
    import polars as pl

    from ..tables.aliases import open_merged
    from ..tables.dataset import PARTITION_KEYS
    from ..tables.periods import PERIODS, with_period
    from ..tables.reports import LEADERBOARD_COLUMNS, leaderboard

    if by is not None and by not in PARTITION_KEYS and by not in PERIODS:
        raise typer.BadParameter(f"choose one of {', '.join((*PARTITION_KEYS, *PERIODS))}", param_hint="--by")
    sorts = ["player", "variant", *([by] if by and by != "variant" else []), *LEADERBOARD_COLUMNS]
    if sort not in sorts:
        raise typer.BadParameter(f"choose one of {', '.join(sorts)}", param_hint="--sort")
    game = variant.value if variant is not None else None
    aliases = _aliases(alias)

    def compute():
        tables = open_merged(folder, aliases)
        if by in PERIODS:
            tables = with_period(tables, by)
        board = leaderboard(folder, by=by, sort=sort, reverse=reverse, variant=game,
                            include_invalid=include_invalid, tables=tables)
        keys = ["variant", *([by] if by and by != "variant" else [])]
        board = board.with_row_index("order").sort([*keys, "order"]).drop("order")  # one ranking per game
        if every_column:
            return board
        ranked = board.with_columns(pl.int_range(1, pl.len() + 1).over(keys).cast(pl.Int64).alias("rank"))
        return ranked.select("player", *keys, "rank", *SHORT_COLUMNS)

    _frame_command(compute, output_format, output, folder, grouped=True)


@app.command()
def ratings(
    folder: FolderArgument,
    history: Annotated[bool, typer.Option("--history", help="The rating after each match, per player (the last row "
                                                          "of each is their rating).")] = False,
    by: Annotated[str | None, typer.Option(metavar="PERIOD", help=f"With --history: the rating at the end of each "
                                                                     f"{PERIOD_HELP}.")] = None,
    variant: VariantOption = None,
    include_invalid: IncludeInvalidOption = False,
    alias: AliasOption = None,
    output_format: FrameFormatOption = None,
    output: FrameOutputOption = None,
) -> None:
    """Plackett–Luce skill ratings (openskill) per variant from valid finished matches in time order, with uncertainty.

    --history: each player's rating after every match they played (--by day, week or month: at each period's end,
    with the change over it).
    """
    from ..tables.aliases import open_merged
    from ..tables.periods import PERIODS
    from ..tables.reports import counted
    from ..tables.reports import ratings as compute_ratings

    if by is not None and by not in PERIODS:
        raise typer.BadParameter(f"choose one of {', '.join(PERIODS)}", param_hint="--by")
    history = history or by is not None
    game = variant.value if variant is not None else None
    aliases = _aliases(alias)

    def compute():
        import polars as pl

        from ..tables.history import history_by, rating_history

        tables = open_merged(folder, aliases)
        if not history:
            return compute_ratings(folder, game, include_invalid, tables)
        matches = tables["matches"].filter(counted(include_invalid))
        if game is not None:
            matches = matches.filter(pl.col("variant") == game)
        found = rating_history(matches)
        return history_by(found, by) if by is not None else found

    _frame_command(compute, output_format, output, folder, grouped=history)


def _counted_matches(folder: str, aliases: dict[str, str], variant: str | None, include_invalid: bool):
    """The folder's tables with aliases merged, and its counted matches (of one variant, or all)."""
    import polars as pl

    from ..tables.aliases import open_merged
    from ..tables.reports import counted

    tables = open_merged(folder, aliases)
    matches = tables["matches"].filter(counted(include_invalid))
    if variant is not None:
        matches = matches.filter(pl.col("variant") == variant)
    return tables, matches


@app.command()
def h2h(
    folder: FolderArgument,
    pairs: Annotated[bool, typer.Option("--pairs", help="A row per player and opponent (matches, wins, losses, ties, "
                                                        "win_share) instead of the matrix.")] = False,
    variant: VariantOption = None,
    include_invalid: IncludeInvalidOption = False,
    alias: AliasOption = None,
    output_format: FrameFormatOption = None,
    output: FrameOutputOption = None,
) -> None:
    """Head to head: who beats whom. A matrix, each cell the row player's wins-losses (-ties) against the column's.

    Each counted match sets each pair of its players against each other: the
    higher final score is ahead (a forfeit is behind everyone), equal scores tie.
    Each variant on rows of its own.
    """
    game = variant.value if variant is not None else None
    aliases = _aliases(alias)

    def compute():
        from ..tables.h2h import head_to_head, matrix

        _, matches = _counted_matches(folder, aliases, game, include_invalid)
        found = head_to_head(matches)
        return found if pairs else matrix(found)

    _frame_command(compute, output_format, output, folder, grouped=True)


@app.command()
def seats(
    folder: FolderArgument,
    opener: Annotated[bool, typer.Option("--opener", help="Results of the opener against the others instead (rounds; "
                                                          "matches by round 1's opener).")] = False,
    variant: VariantOption = None,
    include_invalid: IncludeInvalidOption = False,
    alias: AliasOption = None,
    output_format: FrameFormatOption = None,
    output: FrameOutputOption = None,
) -> None:
    """Which seat wins: results by seat (1: the first player match_start lists) per variant and table size.

    Matches, match wins, drawn matches and win share; the rounds that ended,
    round wins and points per round. --opener: the same for the player who
    opened (each round, and round 1 for the match) against the others.
    """
    game = variant.value if variant is not None else None
    aliases = _aliases(alias)

    def compute():
        from ..tables.seats import by_opener, by_seat

        tables, matches = _counted_matches(folder, aliases, game, include_invalid)
        return (by_opener if opener else by_seat)(matches, tables["players"])

    _frame_command(compute, output_format, output, folder, grouped=True)
