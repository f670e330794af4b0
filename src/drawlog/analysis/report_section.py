"""The data of ``drawlog report``'s Analysis section, from the analysis tables (untrusted: only read, never run).

Per player and game, the ``analysis_players`` row; per match (the first
:data:`MAX_MATCHES` in file and match order), its critical moments as
:func:`~drawlog.analysis.moments.critical_moments` picks them from the
``decisions`` rows. The command line puts the boards in (``board`` of each
moment, from :mod:`drawlog.tables.report_boards`, which this room does not
import).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .decisions import Decision
from .moments import critical_moments
from .summary import DECISION_COLUMNS, PLAYER_COLUMNS

#: Matches whose critical moments are listed (the rest are counted).
MAX_MATCHES: Final = 50
#: Rows of the players table.
MAX_PLAYERS: Final = 500
#: The columns a decision needs to be a critical moment: a row with a null in one (a table drawlog did not
#: write) is counted among its match's decisions but never picked.
MOMENT_COLUMNS: Final = ("file", "match", "line", "error", "swing")


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


def analysis_section(frames: Mapping[str, Any]) -> dict[str, Any]:
    """The Analysis section's data: ``players`` (rows, total), ``moments`` (per match), ``matches_total``.

    ``frames``: the analysis tables (polars frames, lazy or not), refused
    (:class:`~drawlog.errors.OutputError`) without analyze's columns and types.
    Each moment's ``board`` is None, for the caller to fill.
    """
    players = _checked(frames, "analysis_players", PLAYER_COLUMNS).sort("variant", "player")
    decisions = _checked(frames, "decisions", DECISION_COLUMNS)
    keys = decisions.select("file", "match").drop_nulls().unique(maintain_order=True)
    chosen = decisions.join(keys.head(MAX_MATCHES), on=["file", "match"], how="semi")
    moments: list[dict[str, Any]] = []
    for (file, match), group in chosen.group_by("file", "match", maintain_order=True):
        rows = [{**moment.as_dict(), "file": file, "match": match, "board": None}
                for moment in critical_moments(_decision(row) for row in
                                               group.drop_nulls(MOMENT_COLUMNS).iter_rows(named=True))]
        moments.append({"file": file, "match": match, "decisions": group.height, "moments": rows})
    return {"players": players.head(MAX_PLAYERS).to_dicts(), "players_total": players.height,
            "moments": moments, "matches_total": keys.height, "boards": 0}


__all__ = ["MAX_MATCHES", "analysis_section"]
