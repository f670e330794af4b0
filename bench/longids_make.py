"""Reproducer logs for #26 item 3 (bounded memory): many matches with long ids, and one very long match.

``python bench/longids_make.py ids OUT.jsonl.gz MATCHES ID_LENGTH``: MATCHES copies of the first two lines (match_start, round_start) of the first match of
``sample_logs/tournament-2p.jsonl``, each with an id of ID_LENGTH characters that differs from the others
only in its last characters.
``python bench/longids_make.py names OUT.jsonl.gz MATCHES NAME_LENGTH``: MATCHES matches (start, deal, four plays
and a pass by someone not playing) whose two players have names of NAME_LENGTH characters, alike but for their
last characters (a deal names each player twice or more: keep NAME_LENGTH under about 330,000 for its line to stay
under the 1 MB limit).
``python bench/longids_make.py long OUT.jsonl.gz LINES``: one match of about LINES lines, its first round
dealt again and again (round numbers and seq renumbered, target 10**9).
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

SAMPLE = Path(__file__).resolve().parent.parent / "sample_logs" / "tournament-2p.jsonl"


def first_match() -> list[dict]:
    """The events of the sample's first match."""
    events = []
    first = None
    for line in SAMPLE.read_text().splitlines():
        event = json.loads(line)
        first = first or event["match"]
        if event["match"] == first:
            events.append(event)
    return events


def long_ids(out: Path, matches: int, length: int) -> None:
    """MATCHES matches (each its match_start and first round_start), ids of LENGTH characters differing only
    at their end."""
    events = first_match()[:2]
    with gzip.open(out, "wt", compresslevel=6) as stream:
        for number in range(matches):
            tail = f"-{number:08d}"
            match_id = "m" * (length - len(tail)) + tail
            for event in events:
                stream.write(json.dumps({**event, "match": match_id}, separators=(",", ":")) + "\n")


def long_match(out: Path, lines: int) -> None:
    """One match of about LINES lines: its first round over and over."""
    events = first_match()
    start = {**events[0], "target": 10**9}
    end_at = next(index for index, event in enumerate(events) if event["type"] == "round_end")
    round_events = events[1:end_at + 1]
    seq = 1
    with gzip.open(out, "wt", compresslevel=6) as stream:
        stream.write(json.dumps(start) + "\n")
        number = 0
        while seq < lines:
            number += 1
            for event in round_events:
                seq += 1
                stream.write(json.dumps({**event, "round": number, "seq": seq} if "round" in event
                                        else {**event, "seq": seq}) + "\n")


def long_names(out: Path, matches: int, length: int) -> None:
    """MATCHES matches whose players' names are LENGTH characters long, alike but for their last characters."""
    events = first_match()[:6]
    with gzip.open(out, "wt", compresslevel=6) as stream:
        for number in range(matches):
            names = {}
            for seat in (1, 2, 3):
                tail = f"-{number:08d}-{seat}"
                names[f"p{seat}"] = "n" * (length - len(tail)) + tail
            for event in [*events, {"type": "pass", "player": "p3", "match": events[0]["match"], "seq": 7}]:
                event = dict(event, match=f"n-{number:08d}")
                if "players" in event:
                    event["players"] = [names[name] for name in event["players"]]
                for field in ("player", "opener"):
                    if field in event:
                        event[field] = names[event[field]]
                if "hands" in event:
                    event["hands"] = {names[name]: tiles for name, tiles in event["hands"].items()}
                stream.write(json.dumps(event, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    if sys.argv[1] == "ids":
        long_ids(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1] == "names":
        long_names(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    else:
        long_match(Path(sys.argv[2]), int(sys.argv[3]))
