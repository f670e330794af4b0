"""One decision weighed, the one at a line of a log (``drawlog replay FILE:LINE --analyze``).

The match of that line is walked as :mod:`.walk` walks it (voids, ply), with
only the move at the line weighed: the same :func:`~drawlog.analysis.decisions.weigh`
and the same random numbers (:func:`~drawlog.analysis.decisions.decision_seed`)
as ``drawlog analyze`` with that seed and that many samples, so the figures are
that command's, equal to the last digit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..log.events import Draw, MatchStart, Pass, Play
from ..log.sources import Source
from .decisions import Decision
from .walk import Stop, WalkOptions, _events, _MatchWalk, _start, first_errors


class _AtLine(_MatchWalk):
    """A match walk that weighs the move at one line alone and stops there."""

    target = 0

    def _weigh(self, state: Any, seat: int, event: Play | Draw | Pass, kind: str, line: int) -> None:
        if line == self.target:
            super()._weigh(state, seat, event, kind, line)


@dataclass(frozen=True)
class LineDecision:
    """What the move at a line was: a ``decision`` weighed, or None (``why`` not; ``stop``: the walk stopped first)."""

    decision: Decision | None
    why: str
    stop: Stop | None = None

    def as_dict(self) -> dict[str, Any]:
        """The ``analysis`` field of a replay frame (``--format json``)."""
        decision = self.decision
        if decision is None:
            return {"decision": False, "why": self.why}
        return {"decision": True, "player": decision.player, "samples": decision.samples,
                "actions": [{"action": label, "equity": info, "omniscient_equity": omni}
                            for label, info, omni in decision.actions],
                "taken": decision.action, "best": decision.best, "omniscient_best": decision.omniscient_best,
                "error": decision.error, "error_se": decision.error_se, "class": decision.error_class,
                "swing": decision.swing}


def decision_at(source: Source, match: str, line: int, samples: int, seed: int) -> LineDecision:
    """The decision of the move at ``line`` of match ``match`` in ``source``, weighed as ``analyze`` weighs it."""
    stops = first_errors(source)
    options = WalkOptions(samples, seed, luck=False, decisions=True)
    walk: _AtLine | None = None
    kind = None
    for number, event in _events(source):
        if number > line:
            break
        if event.match != match:
            continue
        if isinstance(event, MatchStart):
            if walk is None:
                base = _start(source.name, event, stops.get(match), options)
                walk = _AtLine(base.analysis, base.match, base.stop, options)
                walk.target = line
            continue
        if walk is None or walk.done:
            continue
        walk.feed(event, number)
        if number == line:
            kind = type(event).__name__
    if walk is None:
        return LineDecision(None, "no match_start of this match before the line")
    if walk.analysis.decisions:
        return LineDecision(walk.analysis.decisions[0], "")
    if walk.analysis.stop is not None and walk.analysis.stop.line <= line:
        stop = walk.analysis.stop
        return LineDecision(None, f"the analysis stopped at line {stop.line} ({stop.code} {stop.message})", stop)
    if kind not in ("Play", "Draw"):
        return LineDecision(None, "not a move to weigh: only plays and draws are decisions")
    return LineDecision(None, "an only move: fewer than two different legal actions")


__all__ = ["LineDecision", "decision_at"]
