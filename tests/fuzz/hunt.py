"""A long fuzzing run by hand that keeps going past failures: each failing input is saved with its error.

    python tests/fuzz/hunt.py --examples 20000 --target damaged --out /tmp/drawlog-hunt

Every input that breaks a property of :mod:`agree` is written to ``OUT`` as
``<target>-<hash>-<n>.bin`` (the bytes of each log, before compression) beside ``.txt`` (the
error), at most three per distinct error; the counts are printed at the end. Not
run by pytest.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.agree import check_chunked, check_cli, check_files, check_log
from fuzz.agree_commands import check_filter, check_replay
from fuzz.agree_settings import check_baseline, check_config, check_report
from fuzz.hostile import baseline_changes, config_files, filter_options, table_damage
from fuzz.inputs import damaged_logs, raw_logs, read_sizes

#: Examples per hypothesis run.
BATCH = 1000


#: Each target: its strategies (logs, suffix, read sizes) and what it checks.
TARGETS = {
    "damaged": (damaged_logs(), st.sampled_from([".jsonl", ".jsonl", ".jsonl", ".jsonl.gz", ".jsonl.zst"]), st.just([])),
    "raw": (raw_logs, st.just(".jsonl"), st.just([])),
    "files": (st.lists(damaged_logs() | raw_logs, min_size=2, max_size=4), st.just(".jsonl"), st.just([])),
    "pipe": (damaged_logs() | raw_logs, st.sampled_from([".jsonl", ".jsonl", ".jsonl.gz", ".jsonl.zst"]), read_sizes),
}


#: The command targets (test_fuzz_commands.py): the arguments of their check, drawn as one tuple (a log first).
COMMANDS = {
    "replay": (st.tuples(damaged_logs() | raw_logs, st.integers(1, 400), st.integers(0, 10),
                         st.sampled_from(["text", "json"])), check_replay),
    "filter": (st.tuples(damaged_logs() | raw_logs, filter_options(),
                         st.sampled_from([None, None, None, "match", "tournament"])), check_filter),
    "report": (st.tuples(damaged_logs(), table_damage, st.booleans()), check_report),
    "config": (st.tuples(damaged_logs(), config_files()),
               lambda log, config: check_config(config[1], config[0], log)),
    "baseline": (st.tuples(damaged_logs(), baseline_changes()), lambda log, changes: check_baseline(log, *changes)),
}
for _name, (_arguments, _) in COMMANDS.items():
    TARGETS[_name] = (_arguments, st.just(".jsonl"), st.just([]))


def _check(target: str, data: Any, suffix: str, sizes: list[int]) -> None:
    if target in COMMANDS:
        COMMANDS[target][1](*data)
    elif isinstance(data, list):
        check_files(data)
    elif target == "pipe":
        if suffix != ".jsonl" or not data.startswith((b"\x1f\x8b", b"\x28\xb5\x2f\xfd")):  # stdin unpacks these
            check_chunked(data, sizes, suffix)
    else:
        check_log(data, suffix)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=20_000)
    parser.add_argument("--target", choices=list(TARGETS), default="damaged",
                        help="files: two to four logs in a folder, stats in one process and in two; "
                             "pipe: standard input in reads of any size against a file; replay, filter, report, "
                             "config, baseline: the command targets of test_fuzz_commands.py")
    parser.add_argument("--out", type=Path, default=Path("/tmp/drawlog-hunt"))
    parser.add_argument("--cli-every", type=int, default=10, metavar="N",
                        help="also compare the validate and stats commands on every N-th damaged log (0: never)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    failures: Counter[str] = Counter()
    ran = 0
    started = time.monotonic()
    inputs, suffixes, reads = TARGETS[args.target]

    @settings(max_examples=min(args.examples, BATCH), deadline=None, database=None, phases=["generate"],
              suppress_health_check=list(HealthCheck))
    @given(data=inputs, suffix=suffixes, sizes=reads)
    def run(data: Any, suffix: str, sizes: list[int]) -> None:
        nonlocal ran
        ran += 1
        logs = [data[0]] if args.target in COMMANDS else data if isinstance(data, list) else [data]
        try:
            _check(args.target, data, suffix, sizes)
            if args.cli_every and ran % args.cli_every == 0 and args.target == "damaged" and isinstance(data, bytes):
                check_cli(data)
        except Exception as error:  # noqa: BLE001 - every failure is saved, the run goes on
            text = "".join(traceback.format_exception(error)) + f"\nsuffix={suffix!r} sizes={sizes!r}\n"
            key = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"[:200]
            failures[key] += 1
            if failures[key] <= 3:
                extra = repr(data[1:]).encode() if args.target in COMMANDS else b""
                name = f"{args.target}-{hashlib.sha1(b''.join(logs) + extra).hexdigest()[:12]}"
                for index, log in enumerate(logs):
                    (args.out / f"{name}-{index}.bin").write_bytes(log)
                if args.target in COMMANDS:
                    text += f"arguments after the log: {data[1:]!r}\n"
                (args.out / f"{name}.txt").write_text(text, encoding="utf-8")
        if ran % 1000 == 0:
            print(f"{ran} examples, {time.monotonic() - started:.0f} s, {sum(failures.values())} failures",
                  flush=True)

    while ran < args.examples:  # in batches: hypothesis holds on to what each example drew until the run ends
        run()
    print(f"{ran} examples in {time.monotonic() - started:.0f} s; failures:")
    for key, count in failures.most_common():
        print(f"  {count:6d}  {key}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
