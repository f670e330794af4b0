"""The arena's files: match ids, the table logs' names, ``results.jsonl``'s lines, and trimming a log to the
matches that finished (when a run resumes)."""

from __future__ import annotations

from pathlib import Path

import msgspec


def match_id(table: tuple[str, ...], deal: int, rotation: int) -> str:
    """The id of a match: the table, the deal (from 1) and the rotation (from 1)."""
    return f"{'-vs-'.join(table)}-d{deal + 1:05d}-r{rotation + 1}"


def log_name(table: tuple[str, ...]) -> str:
    """The file of a table's log."""
    return f"{'-vs-'.join(table)}.jsonl"


class Result(msgspec.Struct, omit_defaults=True):
    """One finished match as ``results.jsonl`` lists it."""

    match: str
    file: str
    bots: list[str]
    scores: list[int]
    winner: int | None
    deal: int
    rotation: int
    forfeit: int | None = None
    reason: str | None = None
    detail: str | None = None
    codes: list[str] = []


class _MatchId(msgspec.Struct):
    match: str = ""


def trim(path: Path, done: dict[str, Result]) -> None:
    """Keep only the lines of finished matches in a table's log (rewritten only when something goes)."""
    if not path.exists():
        return
    decoder = msgspec.json.Decoder(_MatchId)
    kept, dropped = [], False
    for line in path.read_bytes().splitlines(keepends=True):
        try:
            ident = decoder.decode(line).match
        except msgspec.DecodeError:
            ident = ""
        if ident in done and line.endswith(b"\n"):
            kept.append(line)
        else:
            dropped = True
    if dropped:
        path.write_bytes(b"".join(kept))


def parse_id(ident: str, players: int) -> tuple[tuple[str, ...], int, int]:
    """The table, deal and rotation (from 0) of a match id made by :func:`match_id`."""
    head, deal, rotation = ident.rsplit("-", 2)
    return tuple(head.split("-vs-")), int(deal[1:]) - 1, int(rotation[1:]) - 1
