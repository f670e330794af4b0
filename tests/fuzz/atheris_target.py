"""The fuzz targets under atheris (coverage-guided, libFuzzer), by hand; not run by pytest.

    pip install -e '.[fuzz]'        # atheris (Linux and macOS wheels for CPython 3.8–3.11)
    python tests/fuzz/atheris_target.py raw -atheris_runs=100000
    python tests/fuzz/atheris_target.py damaged -max_total_time=3600 /tmp/corpus

``raw`` feeds atheris' bytes to drawlog as a log; ``damaged`` lets atheris
steer the hypothesis strategy of damaged simulated matches (through
``fuzz_one_input``). Either checks the properties of :mod:`agree`; a failure
stops the run with the input saved by libFuzzer (``crash-…``). Arguments after
the target are libFuzzer's.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import atheris

with atheris.instrument_imports():
    import drawlog.check.validator
    import drawlog.log.reader
    import drawlog.tables.stats  # noqa: F401

from hypothesis import HealthCheck, given, settings

from fuzz.agree import check_log
from fuzz.inputs import damaged_logs


@settings(database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=damaged_logs())
def _damaged(data: bytes) -> None:
    check_log(data)


def _raw(data: bytes) -> None:
    check_log(data)


def main() -> None:
    targets = {"raw": _raw, "damaged": _damaged.hypothesis.fuzz_one_input}
    if len(sys.argv) < 2 or sys.argv[1] not in targets:
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(targets)}}} [libFuzzer options]")
    target = targets[sys.argv.pop(1)]
    atheris.Setup(sys.argv, target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
