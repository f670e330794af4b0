"""The critical moments of a match: its largest errors and its largest swings, each with a replay command.

Per match, the :data:`TOP` decisions with the largest error (only errors above
0) and the :data:`TOP` with the largest swing (best information equity − worst:
how much was at stake), merged without repeats and listed in the order they
were played. Each names its line and the command that shows the board there,
``drawlog replay FILE:LINE`` (the match of that line, up to it); a log read
from standard input has no file to name, so no command.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from ..log.sources import STDIN
from .decisions import Decision

#: Decisions taken per list (largest errors, largest swings) and per match.
TOP: Final = 5


@dataclass(frozen=True)
class Moment:
    """A critical moment: the decision, why it was picked (``error``, ``swing`` or both) and its replay command."""

    decision: Decision
    reasons: tuple[str, ...]

    @property
    def command(self) -> str | None:
        """``drawlog replay FILE:LINE``, the file quoted for a POSIX shell when it needs it (None: standard input)."""
        if self.decision.file == STDIN:
            return None
        return f"drawlog replay {shlex.quote(f'{self.decision.file}:{self.decision.line}')}"

    def as_dict(self) -> dict[str, Any]:
        """The moment for ``--format json``."""
        decision = self.decision
        return {"line": decision.line, "round": decision.round, "player": decision.player,
                "action": decision.action, "best": decision.best, "error": decision.error,
                "class": decision.error_class, "swing": decision.swing, "why": list(self.reasons),
                "replay": self.command}


def critical_moments(decisions: Iterable[Decision], top: int = TOP) -> list[Moment]:
    """The critical moments among one match's ``decisions``, in line order (see the module's docstring)."""
    mine = list(decisions)
    by_error = sorted((d for d in mine if d.error > 0), key=lambda d: (-d.error, d.line))[:top]
    by_swing = sorted((d for d in mine if d.swing > 0), key=lambda d: (-d.swing, d.line))[:top]
    reasons: dict[int, list[str]] = {}
    chosen: dict[int, Decision] = {}
    for why, picked in (("error", by_error), ("swing", by_swing)):
        for decision in picked:
            chosen[decision.line] = decision
            reasons.setdefault(decision.line, []).append(why)
    return [Moment(chosen[line], tuple(reasons[line])) for line in sorted(chosen)]


__all__ = ["TOP", "Moment", "critical_moments"]
