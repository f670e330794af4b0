"""Start-up time of the ``drawlog`` command line, as whole processes, against the interpreter's own start-up.

Each command is timed in pairs with the baseline (``python -c pass``), run one
after the other, A B A B …: both see the same moment of a noisy machine. The
report gives, per command, the median of the pairs' ratios (command / baseline)
and the absolute medians. With ``--against DIR`` (another checkout's ``src``,
e.g. a ``git worktree`` of the commit before) the same command of that code is
timed in the pairs too, and the ratio new / old is given. The modules' bytecode
is cached (in a scratch ``PYTHONPYCACHEPREFIX``) as in an installed copy, even
where ``PYTHONDONTWRITEBYTECODE`` is set.

    python bench/bench_startup.py                   # 30 pairs per command
    python bench/bench_startup.py --pairs 60 --against /tmp/old/src

Not part of the test suite: timings on a shared machine are noise for a test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def commands(empty: str) -> dict[str, list[str]]:
    """The commands timed, by name (run as ``python -m drawlog …``)."""
    return {"--help": ["--help"], "--version": ["--version"], "validate EMPTY": ["validate", empty]}


#: Where the children keep their bytecode (set in :func:`main`): drawlog is timed as an installed copy runs, its
#: modules compiled once (pip writes the .pyc files), even where PYTHONDONTWRITEBYTECODE is set.
PYCACHE: str | None = None


def run_once(argv: list[str], src: Path | None) -> float:
    """Seconds one process takes, from spawn to exit (output thrown away)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if PYCACHE is not None:
        env["PYTHONPYCACHEPREFIX"] = PYCACHE
    if src is not None:
        env["PYTHONPATH"] = str(src)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=30, help="pairs per command (default 30)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter (default: this one)")
    parser.add_argument("--src", type=Path, default=SRC, help="the drawlog source timed (default: this checkout's)")
    parser.add_argument("--against", type=Path, help="another drawlog source to compare with (e.g. the old code)")
    args = parser.parse_args()
    python = args.python
    global PYCACHE
    with tempfile.TemporaryDirectory() as scratch:
        PYCACHE = str(Path(scratch) / "pycache")
        empty = str(Path(scratch) / "empty.jsonl")
        Path(empty).write_bytes(b"")
        baseline_argv = [python, "-c", "pass"]
        for _ in range(3):  # warm the caches (the .pyc files written, the page cache)
            for tail in commands(empty).values():
                run_once([python, "-m", "drawlog", *tail], args.src)
                if args.against:
                    run_once([python, "-m", "drawlog", *tail], args.against)
        print(f"python: {python}; {args.pairs} pairs per command; medians")
        print(f"{'command':<16} {'baseline':>9} {'drawlog':>9} {'ratio':>7}"
              + (f" {'old':>9} {'new/old':>8}" if args.against else ""))
        for name, tail in commands(empty).items():
            argv = [python, "-m", "drawlog", *tail]
            base, new, old, ratios, against = [], [], [], [], []
            for _ in range(args.pairs):
                base.append(run_once(baseline_argv, None))
                new.append(run_once(argv, args.src))
                ratios.append(new[-1] / base[-1])
                if args.against:
                    old.append(run_once(argv, args.against))
                    against.append(new[-1] / old[-1])
            line = (f"{name:<16} {statistics.median(base) * 1000:>7.1f}ms {statistics.median(new) * 1000:>7.1f}ms "
                    f"{statistics.median(ratios):>6.1f}x")
            if args.against:
                line += f" {statistics.median(old) * 1000:>7.1f}ms {statistics.median(against):>7.2f}x"
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
