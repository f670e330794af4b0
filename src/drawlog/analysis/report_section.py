"""The data of ``drawlog report``'s Analysis section, from the analysis tables (untrusted: only read, never run).

Per player and game, the ``analysis_players`` row; per match (the first
:data:`MAX_MATCHES` in file and match order), its critical moments as
:func:`~drawlog.analysis.moments.critical_moments` picks them from the
``decisions`` rows, the first ``max_boards`` with the board after the move
(:func:`~drawlog.tables.report_boards.frames_at`, the logs opened only as the
report's :class:`~drawlog.tables.report_data.LogAccess` allows).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from .decisions import Decision
from .moments import critical_moments
from .summary import DECISION_COLUMNS, PLAYER_COLUMNS

#: Matches whose critical moments are listed (the rest are counted).
MAX_MATCHES: Final = 50
#: Rows of the players table.
MAX_PLAYERS: Final = 500
#: Seconds the moments' boards may take.
BOARDS_SECONDS: Final = 300.0


def _checked(frames: Mapping[str, Any], name: str, columns: tuple[tuple[str, str], ...]) -> Any:
    """The table ``name`` collected, refused (:class:`~drawlog.errors.OutputError`) without the columns analyze writes."""
    import polars as pl

    from ..errors import OutputError

    frame = frames[name]
    frame = frame.collect() if isinstance(frame, pl.LazyFrame) else frame
    for column, kind in columns:
        if frame.schema.get(column) != getattr(pl, kind):
            raise OutputError(f"the {name} table is not one drawlog analyze wrote: {column} "
                              f"{'is ' + str(frame.schema[column]) if column in frame.schema else 'is missing'}, "
                              f"not {kind}")
    return frame


def _decision(row: dict[str, Any]) -> Decision:
    values = {name: row[name] for name, _ in DECISION_COLUMNS if name != "class"}
    return Decision(**values, error_class=row["class"])


def analysis_section(frames: Mapping[str, Any], paths: Mapping[tuple[str, str], str | None],
                     opened: Callable[[str, str | None], Path | str], max_boards: int) -> dict[str, Any]:
    """The Analysis section's data: ``players`` (rows, total), ``moments`` (per match), ``matches`` (total).

    ``frames``: the analysis tables (polars frames, lazy or not); ``paths``:
    each ``(file, match)``'s stored path (the statistics' ``matches`` table);
    ``opened``: the report's rule for opening a log (a path, or why not).
    """
    from ..tables.report_boards import Wanted, board_of, frames_at

    players = _checked(frames, "analysis_players", PLAYER_COLUMNS).sort("variant", "player")
    decisions = _checked(frames, "decisions", DECISION_COLUMNS)
    keys = decisions.select("file", "match").unique(maintain_order=True)
    shown_keys = keys.head(MAX_MATCHES)
    chosen = decisions.join(shown_keys, on=["file", "match"], how="semi")
    moments: list[dict[str, Any]] = []
    for (file, match), group in chosen.group_by("file", "match", maintain_order=True):
        rows = [{**moment.as_dict(), "file": file, "match": match}
                for moment in critical_moments(_decision(row) for row in group.iter_rows(named=True))]
        moments.append({"file": file, "match": match, "decisions": group.height, "moments": rows})
    wanted = [Wanted(index, row["file"], paths.get((row["file"], row["match"])), row["line"], row["match"])
              for index, row in enumerate(row for each in moments for row in each["moments"]) if index < max_boards]
    boards = frames_at(wanted, opened=opened, deadline=time.monotonic() + BOARDS_SECONDS) if wanted else {}
    index = 0
    for each in moments:
        for row in each["moments"]:
            row["board"] = board_of(boards[index]) if index in boards else None
            index += 1
    return {"players": players.head(MAX_PLAYERS).to_dicts(), "players_total": players.height,
            "moments": moments, "matches_total": keys.height,
            "boards": sum(1 for each in moments for row in each["moments"]
                          if row["board"] is not None and row["board"]["board"] is not None),
            "boards_limit": max_boards}


__all__ = ["MAX_MATCHES", "analysis_section"]
