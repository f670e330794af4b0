"""drawlog: validate, score and analyse move logs of the domino games Draw and All Fives.

The rules engine (:class:`Match`, :class:`Round`, :class:`FivesRound`, the game
profiles) is a pure library; the :class:`Validator` replays logs through it; the
CLI (``drawlog``) sits on top. From a notebook: :func:`validate`,
:func:`validate_events` (plain dicts too), :func:`write_stats`, :func:`read_stats`,
:func:`replay` and :func:`analyze` (nothing printed); :class:`Position` reads and writes position strings
(``dp1 …``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: Where each public name lives. They are imported on first use (PEP 562), so that
#: ``import drawlog.cli`` does not import the engine, polars and the rest before a command needs them.
_PUBLIC = {
    "Validation": "api",
    "analyze": "api",
    "read_stats": "api",
    "replay": "api",
    "validate": "api",
    "validate_events": "api",
    "write_stats": "api",
    "RULES": "check.rules",
    "RULES_BY_CODE": "check.rules",
    "Rule": "check.rules",
    "find_rule": "check.rules",
    "Validator": "check.validator",
    "validate_lines": "check.validator",
    "validate_paths": "check.validator",
    "Summary": "check.violations",
    "Violation": "check.violations",
    "FivesRound": "engine.allfives",
    "Match": "engine.match",
    "check_players": "engine.match",
    "hand_size": "engine.match",
    "ALL_FIVES": "engine.profiles",
    "DRAW": "engine.profiles",
    "PROFILES": "engine.profiles",
    "GameRules": "engine.profiles",
    "Profile": "engine.profiles",
    "house_rules": "engine.profiles",
    "BLOCKED": "engine.rounds",
    "DOMINO": "engine.rounds",
    "TARGET": "engine.rounds",
    "Position": "engine.position",
    "Placement": "engine.rounds",
    "Round": "engine.rounds",
    "MatchResult": "engine.scoring",
    "RoundScore": "engine.scoring",
    "default_target": "engine.scoring",
    "match_result": "engine.scoring",
    "round_to_five": "engine.scoring",
    "score_round": "engine.scoring",
    "Tableau": "engine.tableau",
    "DrawlogError": "errors",
    "Fault": "errors",
    "IllegalAction": "errors",
    "InputError": "errors",
    "NothingRead": "errors",
    "OutputError": "errors",
    "PositionError": "errors",
    "WriteFailed": "errors",
    "FORMAT_VERSION": "log.events",
    "AnyEvent": "log.events",
    "json_schema": "log.events",
    "violations_frame": "tables.violations",
}

if TYPE_CHECKING:
    from .api import Validation, analyze, read_stats, replay, validate, validate_events, write_stats
    from .check.rules import RULES, RULES_BY_CODE, Rule, find_rule
    from .check.validator import Validator, validate_lines, validate_paths
    from .check.violations import Summary, Violation
    from .engine.allfives import FivesRound
    from .engine.match import Match, check_players, hand_size
    from .engine.position import Position
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
        PositionError,
        WriteFailed,
    )
    from .log.events import FORMAT_VERSION, AnyEvent, json_schema
    from .tables.violations import violations_frame

    #: Whether the rules engine runs compiled (mypyc) or as pure Python; both behave the same.
    COMPILED: bool


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use (then kept here); ``COMPILED`` is worked out then."""
    if name == "COMPILED":
        from .engine.rounds import Round

        value: Any = hasattr(Round, "__mypyc_attrs__")
    elif name in _PUBLIC:
        value = getattr(importlib.import_module(f".{_PUBLIC[name]}", __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "COMPILED"})

__all__ = [
    "ALL_FIVES", "BLOCKED", "DOMINO", "DRAW", "FORMAT_VERSION", "PROFILES", "RULES", "RULES_BY_CODE", "TARGET",
    "AnyEvent", "DrawlogError", "Fault", "FivesRound", "GameRules", "IllegalAction", "InputError", "Match",
    "MatchResult", "NothingRead", "OutputError", "Placement", "Position",
    "PositionError", "Profile", "Round", "RoundScore", "Rule", "Summary",
    "Tableau", "Validation", "Validator", "Violation", "WriteFailed",
    "analyze", "check_players", "default_target", "find_rule", "hand_size", "house_rules", "json_schema",
    "match_result", "read_stats", "replay", "round_to_five", "score_round", "validate", "validate_events",
    "validate_lines", "validate_paths",
    "violations_frame", "write_stats",
]
