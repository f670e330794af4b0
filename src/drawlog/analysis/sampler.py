"""Deals of the unseen tiles consistent with what the player to move could know.

The player to move (the *viewer*) knows their own hand, the tiles placed, how
many tiles every other player holds, the stock's size, and the *voids* learned
from play: a seat that passed, or (All Fives) drew, held no tile matching the
open ends at that moment (:class:`VoidTracker`). Everything else — which of the
unseen tiles each other player holds, and the stock's order — is sampled by
:class:`DealSampler`.

**How (and its bias).** Rejection sampling with a constrained proposal: the
most constrained other hand is dealt uniformly from the tiles its voids allow,
the rest of the unseen tiles are shuffled into the other hands and the stock,
and the deal is kept when every other hand respects its voids. Every deal
consistent with the knowledge has the same proposal probability, so the kept
deals are **exactly uniform** over the consistent deals (with two players, or
voids on one seat only, the first proposal is always kept). Only when
:data:`MAX_REJECTIONS` proposals in a row are refused (several seats with tight
voids, 3–4 players) does it fall back to a sequential constrained deal (each
constrained hand dealt in turn from what its voids allow), which is biased
towards hands dealt first; :attr:`DealSampler.fallbacks` counts those deals.
The stock's order is a uniform shuffle. Nothing is inferred from *which* tile a
player chose (no model of the other players' play): only hard facts count.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final

from ..engine.allfives import FivesRound
from ..engine.rounds import Round
from ..engine.tiles import FULL_SET, members

#: Proposals refused in a row before a deal falls back to the sequential constrained deal (biased).
MAX_REJECTIONS: Final = 400
#: Sequential constrained deals tried before the knowledge is called inconsistent.
MAX_FALLBACK_TRIES: Final = 400


class SamplingError(ValueError):
    """The knowledge allows no deal (a void rules out more tiles than a hand needs)."""


@dataclass(frozen=True)
class Knowledge:
    """What the viewer knows: ``hands[viewer]`` is their hand; other hands only count (``sizes``).

    ``unseen`` is every tile neither in the viewer's hand nor placed (the other
    hands and the stock together); ``excluded[seat]`` the tiles that seat cannot
    hold (its voids); ``stock_size`` how many unseen tiles are in the stock.
    """

    viewer: int
    hand: int
    unseen: int
    sizes: tuple[int, ...]
    stock_size: int
    excluded: tuple[int, ...]

    @classmethod
    def of(cls, state: Round, viewer: int, excluded: list[int] | None = None) -> Knowledge:
        """The knowledge of ``viewer`` in ``state`` (``excluded``: the voids a :class:`VoidTracker` learned)."""
        hand = state.hands[viewer]
        unseen = FULL_SET & ~hand & ~state.on_line()
        voids = tuple(excluded) if excluded is not None else (0,) * len(state.hands)
        sizes = tuple(other.bit_count() for other in state.hands)
        return cls(viewer, hand, unseen, sizes, state.stock_left, tuple(
            0 if seat == viewer else voids[seat] & unseen for seat in range(len(state.hands))))


class VoidTracker:
    """The voids of one round: ``excluded[seat]``, the tiles a seat is known not to hold.

    Call :meth:`before_move` with the state *before* each move is applied.

    * A pass (both games) says the seat held nothing matching the open ends; a
      seat that passes can never draw again in that round, so the void lasts.
    * All Fives: every draw is forced, so a draw says the same; the drawn tiles
      that did not fit are kept, the one that fits is placed at once, so after
      the drawing the whole hand still matches none of those ends. A new run of
      draws (after another move) may bring tiles matching the old ends: the
      void is then replaced by the new one.
    * Draw: a draw proves nothing (drawing is allowed holding a playable tile),
      and it may bring tiles matching an old void's ends: the void is forgotten.
    """

    def __init__(self, players: int) -> None:
        self.excluded = [0] * players
        self._drew_last = [False] * players

    def before_move(self, state: Round, seat: int, kind: str) -> None:
        """Learn from ``seat``'s move of ``kind`` (``draw``, ``play`` or ``pass``) about to be made in ``state``."""
        fitting = state.line.fitting()
        fives = isinstance(state, FivesRound)
        if kind == "pass":
            self.excluded[seat] |= fitting
        elif kind == "draw":
            if not fives:
                self.excluded[seat] = 0
            elif self._drew_last[seat]:
                self.excluded[seat] |= fitting
            else:
                self.excluded[seat] = fitting
        self._drew_last[seat] = kind == "draw"


class DealSampler:
    """Deals of the unseen tiles for a :class:`Knowledge`: every other hand, and the stock in draw order."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.knowledge = knowledge
        self.fallbacks = 0
        unseen = knowledge.unseen
        self._unseen_tiles = list(members(unseen))
        others = [seat for seat in range(len(knowledge.sizes)) if seat != knowledge.viewer]
        if sum(knowledge.sizes[seat] for seat in others) + knowledge.stock_size != len(self._unseen_tiles):
            raise SamplingError(f"{len(self._unseen_tiles)} unseen tiles cannot fill the other hands "
                                f"({[knowledge.sizes[seat] for seat in others]}) and a stock of "
                                f"{knowledge.stock_size}")
        self._allowed = {seat: unseen & ~knowledge.excluded[seat] for seat in others}
        for seat in others:
            if self._allowed[seat].bit_count() < knowledge.sizes[seat]:
                raise SamplingError(f"seat {seat}'s voids leave {self._allowed[seat].bit_count()} tiles for a "
                                    f"hand of {knowledge.sizes[seat]}")
        constrained = [seat for seat in others if self._allowed[seat] != unseen and knowledge.sizes[seat]]
        # the tightest first: fewest spare tiles allowed beyond the hand's size
        constrained.sort(key=lambda seat: self._allowed[seat].bit_count() - knowledge.sizes[seat])
        self._constrained = constrained
        self._others = others

    def deal(self, rng: random.Random) -> tuple[list[int], list[int]]:
        """One deal: every seat's hand (the viewer's as known) and the stock's tiles in draw order (next first)."""
        for _ in range(MAX_REJECTIONS):
            dealt = self._propose(rng)
            if dealt is not None:
                return dealt
        for _ in range(MAX_FALLBACK_TRIES):
            dealt = self._sequential(rng)
            if dealt is not None:
                self.fallbacks += 1
                return dealt
        raise SamplingError("no deal found that respects every void")

    def _propose(self, rng: random.Random) -> tuple[list[int], list[int]] | None:
        knowledge = self.knowledge
        hands = [0] * len(knowledge.sizes)
        hands[knowledge.viewer] = knowledge.hand
        rest = self._unseen_tiles
        order = self._others
        if self._constrained:
            first = self._constrained[0]
            chosen = rng.sample(list(members(self._allowed[first])), knowledge.sizes[first])
            for tile in chosen:
                hands[first] |= 1 << tile
            rest = [tile for tile in rest if not hands[first] >> tile & 1]
            order = [seat for seat in order if seat != first]
        else:
            rest = list(rest)
        rng.shuffle(rest)
        start = 0
        for seat in order:
            size = knowledge.sizes[seat]
            hand = 0
            for tile in rest[start:start + size]:
                hand |= 1 << tile
            if hand & knowledge.excluded[seat]:
                return None
            hands[seat] = hand
            start += size
        return hands, rest[start:]

    def _sequential(self, rng: random.Random) -> tuple[list[int], list[int]] | None:
        knowledge = self.knowledge
        hands = [0] * len(knowledge.sizes)
        hands[knowledge.viewer] = knowledge.hand
        left = knowledge.unseen
        for seat in self._constrained:
            pool = list(members(self._allowed[seat] & left))
            if len(pool) < knowledge.sizes[seat]:
                return None
            for tile in rng.sample(pool, knowledge.sizes[seat]):
                hands[seat] |= 1 << tile
            left &= ~hands[seat]
        rest = list(members(left))
        rng.shuffle(rest)
        start = 0
        for seat in self._others:
            if seat in self._constrained:
                continue
            size = knowledge.sizes[seat]
            for tile in rest[start:start + size]:
                hands[seat] |= 1 << tile
            start += size
        return hands, rest[start:]


__all__ = ["DealSampler", "Knowledge", "SamplingError", "VoidTracker"]
