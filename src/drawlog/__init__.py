"""drawlog: validate, score and analyse move logs of the domino games Draw and All Fives.

The rules engine (:class:`Match`, :class:`Round`, :class:`FivesRound`, the game
profiles) is a pure library; the :class:`Validator` replays logs through it; the
CLI (``drawlog``) sits on top. From a notebook: :func:`validate`,
:func:`write_stats`, :func:`read_stats` and :func:`replay` (nothing printed).
"""

from .api import Validation, read_stats, replay, validate, write_stats
from .check.rules import RULES, RULES_BY_CODE, Rule, find_rule
from .check.validator import Validator, validate_lines, validate_paths
from .check.violations import Summary, Violation
from .engine.allfives import FivesRound
from .engine.match import Match, check_players, hand_size
from .engine.profiles import ALL_FIVES, DRAW, PROFILES, GameRules, Profile, house_rules
from .engine.rounds import BLOCKED, DOMINO, TARGET, Placement, Round
from .engine.scoring import MatchResult, RoundScore, default_target, match_result, round_to_five, score_round
from .engine.tableau import Tableau
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
from .tables.violations import violations_frame

__version__ = "0.1.0"

#: Whether the rules engine runs compiled (mypyc) or as pure Python; both behave the same.
COMPILED = hasattr(Round, "__mypyc_attrs__")

__all__ = [
    "ALL_FIVES", "BLOCKED", "DOMINO", "DRAW", "FORMAT_VERSION", "PROFILES", "RULES", "RULES_BY_CODE", "TARGET",
    "AnyEvent", "DrawlogError", "Fault", "FivesRound", "GameRules", "IllegalAction", "InputError", "Match",
    "MatchResult", "NothingRead", "OutputError", "Placement", "Profile", "Round", "RoundScore", "Rule", "Summary",
    "Tableau", "Validation", "Validator", "Violation", "WriteFailed",
    "check_players", "default_target", "find_rule", "hand_size", "house_rules", "json_schema", "match_result",
    "read_stats", "replay", "round_to_five", "score_round", "validate", "validate_lines", "validate_paths",
    "violations_frame", "write_stats",
]
