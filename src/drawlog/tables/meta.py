"""What the tables take of ``match_start.meta``: the common keys as typed columns (the whole as JSON beside)."""

from __future__ import annotations

from typing import Any

import msgspec


def bots_of(meta: dict[str, Any], players: list[str]) -> tuple[list[str | None] | None, list[str | None] | None]:
    """The bot name and version of each seat that ``meta`` names (None where it names none).

    ``meta.bots`` is a list (one per seat, in ``players`` order) or an object by
    player; each is a name, or an object ``{"name": …, "version": …}``.
    ``meta.bot_versions`` (a list or an object by player) gives versions too.
    """
    names = _per_seat(meta.get("bots"), players)
    versions = _per_seat(meta.get("bot_versions"), players)
    bots: list[str | None] = []
    found: list[str | None] = []
    for seat in range(len(players)):
        bot, version = names[seat], versions[seat]
        if isinstance(bot, dict):
            version = bot.get("version", version)
            bot = bot.get("name")
        bots.append(text(bot) if bot is not None and not isinstance(bot, (dict, list)) else None)
        found.append(text(version) if version is not None and not isinstance(version, (dict, list)) else None)
    return (bots if any(bot is not None for bot in bots) else None,
            found if any(version is not None for version in found) else None)


def _per_seat(value: object, players: list[str]) -> list[Any]:
    """``value`` as one item per seat: a list of as many as ``players``, or an object by player; else Nones."""
    if isinstance(value, list) and len(value) == len(players):
        return list(value)
    if isinstance(value, dict):
        return [value.get(player) for player in players]
    return [None] * len(players)


def text(value: object) -> str | None:
    """A ``meta`` value as the tables keep it: a string as it is, anything else as its JSON (``true``, not ``True``)."""
    if value is None or isinstance(value, str):
        return value
    return msgspec.json.encode(value).decode()
