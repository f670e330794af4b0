"""``replay``'s text view of a long match streams: its peak memory does not grow with the match's length.

Peak RSS is measured in a child process (``resource.getrusage``'s ``ru_maxrss``,
or the child's own ``VmHWM`` where Linux has it): the long match's against a
short one's, a ratio, never a time.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from peak_memory import peak_kb

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_logs" / "tournament-2p.jsonl"
LONG_LINES = 20_000

def _match(rounds: int, path: Path) -> Path:
    """The sample's first match, its first round dealt ``rounds`` times (target 10**9), gzipped at ``path``."""
    events = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    events = [event for event in events if event["match"] == events[0]["match"]]
    end_at = next(index for index, event in enumerate(events) if event["type"] == "round_end")
    seq = 1
    with gzip.open(path, "wt", compresslevel=1) as stream:
        stream.write(json.dumps({**events[0], "target": 10**9}) + "\n")
        for number in range(1, rounds + 1):
            for event in events[1:end_at + 1]:
                seq += 1
                stream.write(json.dumps({**event, "seq": seq, **({"round": number} if "round" in event else {})})
                             + "\n")
    return path


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A short match (2 rounds, 75 lines) and a long one (about 20,000 lines)."""
    folder = tmp_path_factory.mktemp("matches")
    per_round = 37  # the sample's first round: round_start … round_end
    return _match(2, folder / "short.jsonl.gz"), _match(LONG_LINES // per_round, folder / "long.jsonl.gz")


@pytest.mark.parametrize("to_file", [True, False], ids=["file", "pipe"])
def test_text_replay_of_a_long_match_takes_the_memory_of_a_short_one(logs: tuple[Path, Path], tmp_path: Path,
                                                                    to_file: bool) -> None:
    peaks, outputs = [], []
    for log in logs:
        args = ["replay", str(log), "--match", "t2-000001"] + (["-o", f"{log.name}.txt"] if to_file else [])
        peak, done = peak_kb(args, tmp_path)
        assert done.returncode == 0, done.stderr.decode()
        peaks.append(peak)
        outputs.append((tmp_path / f"{log.name}.txt").read_bytes() if to_file else done.stdout)
    short, long = outputs
    assert long.count(b"\n\nline ") == LONG_LINES // 37 * 37  # every frame but the first follows a blank line
    assert short.count(b"\n\nline ") == 2 * 37
    assert long.splitlines()[-1].startswith(b"position: dp1 ") and b"\x1b" not in long  # plain: no escape
    assert peaks[1] / peaks[0] < 1.25, peaks  # flat: rich kept nothing either, but every frame must go as it comes
