"""The rule catalog in the replay's languages: each violation code's name and summary.

English is :mod:`drawlog.check.rules`' own (the kebab-case name users filter
on, and the summary ``drawlog rule CODE`` prints); Polish, Turkish and
Spanish are translations in the seeds' words (:mod:`.rules_pl`,
:mod:`.rules_tr`, :mod:`.rules_es`). The board views find them in their
message catalog as ``rule.CODE.name`` and ``rule.CODE.summary``
(:func:`~drawlog.views.language.catalog` adds them).
"""

from __future__ import annotations

from ..check.rules import RULES
from .rules_es import RULES_ES
from .rules_pl import RULES_PL
from .rules_tr import RULES_TR

#: Each language's rules: code → (name, summary).
RULE_WORDS: dict[str, dict[str, tuple[str, str]]] = {
    "en": {rule.code: (rule.name, rule.summary) for rule in RULES},
    "pl": RULES_PL,
    "tr": RULES_TR,
    "es": RULES_ES,
}


def rule_keys(lang: str) -> dict[str, str]:
    """``lang``'s words for each rule of the catalog as catalog keys: ``rule.M205.name``, ``rule.M205.summary``.

    Only the codes of :data:`~drawlog.check.rules.RULES`: a translation made
    ahead of its code is not shown until the code exists; a code without a
    translation has no keys (the tests name it).
    """
    table = RULE_WORDS.get(lang, {})
    words: dict[str, str] = {}
    for rule in RULES:
        if rule.code in table:
            name, summary = table[rule.code]
            words[f"rule.{rule.code}.name"] = name
            words[f"rule.{rule.code}.summary"] = summary
    return words
