"""The message catalogs of the board views: one JSON file per language in ``views/lang/``.

Each catalog maps the same keys to one language's words: the seeds' own board
terms (``tiles``, ``connections``, ``legal_points``, the side names
``side.low`` … ``side.B``) and the other words the text view prints. English
is the reference; every catalog has exactly its keys.

A key ``all-fives:WORD`` is ``WORD`` in an All Fives match (seed 004, Polish:
the *boneyard*, the *gracz rozpoczynający*); :func:`in_variant` applies them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources

from ..errors import DrawlogError
from .rule_words import rule_keys

#: The languages a catalog exists for, the default first.
LANGUAGES: tuple[str, ...] = ("en", "pl", "tr", "es")


class UnknownLanguage(DrawlogError, ValueError):
    """A language no catalog exists for."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        super().__init__(f"unknown language {lang!r}: choose one of {', '.join(LANGUAGES)}")


@cache
def _load(lang: str) -> dict[str, str]:
    text = resources.files("drawlog.views").joinpath(f"lang/{lang}.json").read_text(encoding="utf-8")
    words = json.loads(text)
    if not isinstance(words, dict) or not all(isinstance(value, str) for value in words.values()):
        raise ValueError(f"catalog {lang}.json: expected an object of strings")
    return words


def catalog(lang: str = "en") -> dict[str, str]:
    """The words of ``lang`` (a fresh copy); :class:`UnknownLanguage` for a language not in :data:`LANGUAGES`.

    Besides the language file's words it holds each rule's name and summary in
    that language, ``rule.CODE.name`` and ``rule.CODE.summary`` (:mod:`.rule_words`).
    """
    if lang not in LANGUAGES:
        raise UnknownLanguage(lang)
    return {**_load(lang), **rule_keys(lang)}


def in_variant(words: Mapping[str, str], variant: object) -> Mapping[str, str]:
    """``words`` for a match of ``variant``: each ``VARIANT:WORD`` key's text as ``WORD`` (``words`` itself if none)."""
    prefix = f"{variant}:"
    changed = {key[len(prefix):]: text for key, text in words.items() if key.startswith(prefix)}
    return {**words, **changed} if changed else words
