"""Long player names held as bounded keys, as long match ids are (:mod:`drawlog.log.ids`, issue #26).

A log may name a player with half a megabyte of text. Kept whole, every open
match, every row of the tables that names a player (``players``, ``moves``,
``deals``, ``rounds``, ``matches.player_names``) and every violation about one
would hold it again: a few thousand matches took gigabytes. So the replay reads
every name over :data:`~drawlog.log.ids.MAX_ID` characters as its bounded key
(its first 200 characters, ``…`` and a hash of the whole name): the rules
engine, the messages and the tables all see that key. Two names that differ
anywhere keep different keys, so the players of a match stay apart.

:func:`bounded_names` gives an event with such names replaced (the event
itself, unchanged, when it names no long name: the usual case costs a few
length checks).
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from ..log.events import Draw, MatchEnd, MatchStart, Pass, Play, RoundEnd, RoundStart
from ..log.ids import MAX_ID, bounded_id, bounded_ids


def _long(name: str | None) -> bool:
    return name is not None and len(name) > MAX_ID


def _any_long(names: Any) -> bool:
    """Whether any of ``names`` (a list, or a dict's keys; None: none) is long."""
    if names is None:
        return False
    for name in names:
        if len(name) > MAX_ID:
            return True
    return False


def _bounded_keys(by_name: dict[str, Any]) -> dict[str, Any]:
    """``by_name`` keyed by bounded names (two long names alike for 200 characters stay two keys)."""
    return {bounded_id(name): value for name, value in by_name.items()}


def bounded_names(event: Any) -> Any:
    """``event`` with each player name over ``MAX_ID`` characters as its bounded key (``event`` itself if none is).

    Names are in ``players`` (match_start), ``player`` (moves), ``opener`` and the keys of ``hands``
    (round_start), ``winner`` and the keys of ``points``/``hands``/``scores`` (round_end, match_end) and a
    forfeit's ``player``.
    """
    kind = type(event)
    if kind is Draw or kind is Play or kind is Pass:
        player: str = event.player
        return replace(event, player=bounded_id(player)) if len(player) > MAX_ID else event
    if kind is RoundStart:
        start: Any = event
        if _long(start.opener) or _any_long(start.hands):
            return replace(start, opener=bounded_id(start.opener), hands=_bounded_keys(start.hands))
        return event
    if kind is RoundEnd:
        end: Any = event
        if _long(end.winner) or _any_long(end.points) or _any_long(end.hands):
            return replace(end, winner=None if end.winner is None else bounded_id(end.winner),
                           points=_bounded_keys(end.points),
                           hands=None if end.hands is None else _bounded_keys(end.hands))
        return event
    if kind is MatchEnd:
        over: Any = event
        forfeit = over.forfeit
        if _long(over.winner) or _any_long(over.scores) or (forfeit is not None and _long(forfeit.player)):
            return replace(over, winner=None if over.winner is None else bounded_id(over.winner),
                           scores=_bounded_keys(over.scores),
                           forfeit=None if forfeit is None else replace(forfeit, player=bounded_id(forfeit.player)))
        return event
    if kind is MatchStart:
        begin: Any = event
        if _any_long(begin.players):
            return replace(begin, players=bounded_ids(begin.players))
    return event


__all__ = ["bounded_names"]
