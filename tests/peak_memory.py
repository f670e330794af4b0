"""For the memory tests: run ``drawlog`` in a child process and read its own peak RSS.

Not a test module: imported by ``test_bounded_memory``, ``test_bounded_names`` and
``test_replay_text_memory`` (pytest puts this folder on the path). No timed assertion: memory only.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Runs ``drawlog ARGS`` and prints its peak RSS (KB) to standard error, last. The peak is the child's
#: ``VmHWM`` (its own memory since exec): ``ru_maxrss`` may keep the parent's peak, inherited through fork.
_RUN = ("import resource, runpy, sys\n"
        "sys.argv = ['drawlog', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('drawlog', run_name='__main__')\n"
        "except SystemExit as stop:\n    code = stop.code\nelse:\n    code = 0\n"
        "from pathlib import Path\n"
        "status = Path('/proc/self/status')\n"
        "peak = [line.split()[1] for line in status.read_text().splitlines() if line.startswith('VmHWM:')] "
        "if status.exists() else []\n"
        "sys.stdout.flush()\n"
        "print(peak[0] if peak else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
        "sys.exit(code)\n")


def peak_kb(args: list[str], cwd: Path) -> tuple[int, subprocess.CompletedProcess[bytes]]:
    """Run ``drawlog ARGS`` in a child in ``cwd``: its peak RSS in KB, and the result (output as bytes)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-c", _RUN, *args], cwd=cwd, env=env, capture_output=True, check=False)
    return int(done.stderr.decode().strip().splitlines()[-1]), done
