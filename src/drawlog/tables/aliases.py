"""Player aliases: one player logged under several names, merged into one name in every view.

An aliases file maps each canonical name to the names it also goes by, in TOML
or JSON (by the file's extension; ``.toml`` or ``.json``)::

    # aliases.toml
    ann = ["Ann", "ann_k", "annk@club"]
    bob = ["Robert"]

or ``{"ann": ["Ann", "ann_k"], "bob": ["Robert"]}``. A name given to two
canonical names (or a canonical name listed as another's alias) is an error
naming the file. :func:`merged` renames the players in every table (matches,
rounds, players, moves, violations) lazily, so ``players``, ``ratings``,
``h2h``, ``ratings --history`` and ``seats`` all see one player.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path

import polars as pl

from ..errors import DrawlogError


class AliasError(DrawlogError):
    """An aliases file that cannot be read, or one that gives a name two canonical names."""


def load_aliases(path: str | Path) -> dict[str, str]:
    """The file's aliases as ``{alias: canonical}``; :class:`AliasError` names the file when it is unusable."""
    where = Path(path)
    try:
        text = where.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise AliasError(f"cannot read the aliases file {where}: {reason}") from None
    if where.suffix.lower() == ".json":
        try:
            document = json.loads(text)
        except ValueError as error:
            raise AliasError(f"{where}: not valid JSON: {error}") from None
    else:
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover - Python 3.10
            import tomli as tomllib

        try:
            document = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise AliasError(f"{where}: not valid TOML: {error} (or name a .json file)") from None
    return alias_map(document, str(where))


def alias_map(document: object, where: str = "aliases") -> dict[str, str]:
    """``{canonical: [alias, …]}`` as ``{alias: canonical}``; a name with two canonical names is an error."""
    if not isinstance(document, Mapping):
        raise AliasError(f"{where}: must map each canonical name to a list of its aliases")
    found: dict[str, str] = {}
    for canonical, names in document.items():
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
            raise AliasError(f"{where}: {canonical}: must be a list of names (strings)")
        for name in names:
            if name == canonical:
                continue
            earlier = found.get(name)
            if earlier is not None and earlier != canonical:
                raise AliasError(f"{where}: {name!r} is given two canonical names, {earlier!r} and {canonical!r}")
            found[name] = canonical
    for name, canonical in found.items():
        if name in document:
            raise AliasError(f"{where}: {name!r} is a canonical name and also an alias of {canonical!r}")
    return found


def canonical(column: str | pl.Expr, aliases: Mapping[str, str]) -> pl.Expr:
    """``column`` (names) with each alias replaced by its canonical name; nulls and other names kept."""
    expr = pl.col(column) if isinstance(column, str) else column
    return expr.replace(dict(aliases)) if aliases else expr


#: The columns holding a player's name, per table (lists of names marked with ``[]``).
NAME_COLUMNS = {
    "matches": ("player_names[]", "winner", "forfeit", "claimed_winner"),
    "rounds": ("opener", "winner", "claimed_winner"),
    "players": ("player",),
    "moves": ("player",),
    "violations": ("player",),
}


def merged(tables: Mapping[str, pl.LazyFrame], aliases: Mapping[str, str]) -> dict[str, pl.LazyFrame]:
    """The tables with every player's name canonical (lazy; unchanged without aliases).

    A match holding two of one player's names keeps both seats under the one name.
    """
    if not aliases:
        return dict(tables)
    renamed = {}
    for name, frame in tables.items():
        columns = [column for column in NAME_COLUMNS.get(name, ()) if column.rstrip("[]") in frame.collect_schema()]
        renamed[name] = frame.with_columns(
            pl.col(column[:-2]).list.eval(canonical(pl.element(), aliases)) if column.endswith("[]")
            else canonical(column, aliases) for column in columns)
    return renamed


def open_merged(folder: str | Path, aliases: Mapping[str, str] | None = None) -> dict[str, pl.LazyFrame]:
    """The tables of a statistics folder (:func:`~drawlog.tables.dataset.open_tables`) with aliases merged."""
    from .dataset import open_tables

    return merged(open_tables(folder), aliases or {})
