"""Is what luck leaves of a policy mirror sampling noise? The same matches' luck at growing N.

Simulates ``--matches`` Draw matches (2 players, the rollout policy in every
seat, :class:`luck_mirror.PolicyBot`) from simulation seed ``--seed`` and, for
each N of ``--samples``, values their luck with N rollouts per value and prints
:func:`luck_mirror.figures` and player 1's luck-adjusted result per match.
When the players play the policy, result − luck is the average deal's value
plus the luck values' sampling noise, so the share explained should climb to 1
as N grows. Run: ``PYTHONPATH=src python experiments/luck_noise.py``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import luck_mirror  # the sibling script: its bot, simulation and figures

from drawlog.analysis.walk import MatchAnalysis, analyze_paths


def main() -> int:
    """Print one line per N."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=201)
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--samples", default="16,64,256", help="the N values (comma-separated)")
    parser.add_argument("--game", default="draw")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="luck-noise-") as name:
        path = luck_mirror.simulate(Path(name), args.game, "policy", 2, args.seed, args.matches)
        for k in (int(value) for value in args.samples.split(",")):
            analyses = [a for a in analyze_paths([str(path)], k, 0, decisions=False) if isinstance(a, MatchAnalysis)]
            rows = luck_mirror.rows_of(analyses)
            figures = {key: round(value, 2) for key, value in luck_mirror.figures(rows).items()}
            print(k, figures, [round(row.result - row.luck, 1) for row in rows if row.player == "p1"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
