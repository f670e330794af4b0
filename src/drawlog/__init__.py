"""drawlog: validate, score and analyse move logs of the domino game Draw.

The rules engine (:class:`Match`, :class:`Round`) is a pure library; the
:class:`Validator` replays logs through it; the CLI (``drawlog``) sits on top.
"""

from .check.rules import RULES, RULES_BY_CODE, Rule, find_rule
from .check.validator import Validator, validate_lines, validate_paths
from .check.violations import Summary, Violation
from .engine.match import Match, check_players, hand_size
from .engine.rounds import BLOCKED, DOMINO, Placement, Round
from .engine.scoring import MatchResult, RoundScore, default_target, match_result, score_round
from .errors import (
    DrawlogError,
    Fault,
    IllegalAction,
    InputError,
    NothingRead,
    OutputError,
    WriteFailed,
)
from .log.events import FORMAT_VERSION, AnyEvent, json_schema

__version__ = "0.1.0"

#: Whether the rules engine runs compiled (mypyc) or as pure Python; both behave the same.
COMPILED = hasattr(Round, "__mypyc_attrs__")

__all__ = [
    "BLOCKED", "DOMINO", "FORMAT_VERSION", "RULES", "RULES_BY_CODE",
    "AnyEvent", "DrawlogError", "Fault", "IllegalAction", "InputError", "Match", "MatchResult",
    "NothingRead", "OutputError", "Placement", "Round", "RoundScore", "Rule", "Summary", "Validator", "Violation",
    "WriteFailed",
    "check_players", "default_target", "find_rule", "hand_size", "json_schema", "match_result",
    "score_round", "validate_lines", "validate_paths",
]
