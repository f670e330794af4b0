"""Which of two players is stronger: a sequential probability ratio test, decided as fishtest decides.

Pure arithmetic, no I/O. :class:`Sprt` takes the cumulative wins, draws and
losses of one player (A) against another (B) after each game and says when
the test has decided: ``"H1"`` (A is stronger by ``elo1`` or more),
``"H0"`` (A is not stronger than ``elo0``), or ``None`` (play on).

**Model** (fishtest's and cutechess's): each game is a win, a draw or a loss
for A, scoring 1, ½ or 0 (a *trinomial*); Elo is *logistic*: a difference of
``elo`` points means an expected score ``s(elo) = 1 / (1 + 10^(-elo/400))``.
The hypotheses are H0: ``s = s0 = s(elo0)`` and H1: ``s = s1 = s(elo1)``.

**GSPRT** (generalised SPRT, fishtest's ``LLR_logistic``): the draw rate is not
known, so each hypothesis is given its most likely trinomial. With ``n`` the
games and ``p = (pL, pD, pW)`` their observed shares (a count of 0 taken as
0.001, fishtest's regularisation, ``n`` their sum), the most likely
distribution with expected score ``s`` is ``q_i = p_i / (1 + x (a_i - s))``
(``a = (0, ½, 1)``), ``x`` the root of ``Σ p_i (a_i - s) / (1 + x (a_i - s)) = 0``
(Van den Bergh's secular equation), and

    LLR = n · Σ_i p_i · ln(q1_i / q0_i)

for ``q0``, ``q1`` those of ``s0`` and ``s1``. Near the middle it is close to
the normal approximation that cutechess and fastchess compute,
``n (s1 - s0)(2 s̄ - s0 - s1) / (2 σ²)`` (``s̄`` the mean score, ``σ²`` its
variance per game: :func:`approximate_llr`), and unlike it stays finite and
small when every game so far has one result (the approximation divides by a
variance of zero).

**Bounds** (Wald's): the test accepts H1 once ``LLR ≥ ln((1 - β) / α)`` and H0
once ``LLR ≤ ln(β / (1 - α))``; ``α`` is the chance of accepting H1 when H0
holds, ``β`` of accepting H0 when H1 holds.

Sources: A. Wald, *Sequential Analysis* (1947); M. Van den Bergh, "Support
of the MLE for multinomial distributions" and "A note on the GSPRT
approximation" (``cantate.be/Fishtest``); fishtest,
``server/fishtest/stats/LLRcalc.py`` (``LLR_logistic``, ``regularize``).
"""

from __future__ import annotations

import math
from typing import Literal

#: What :meth:`Sprt.update` says: H0 accepted, H1 accepted, or (None) not decided yet.
Decision = Literal["H0", "H1"]
#: A count of 0 is taken as this much (fishtest's ``regularize``), so every outcome has some weight.
EMPTY = 1e-3
#: The scores of a loss, a draw and a win.
_VALUES = (0.0, 0.5, 1.0)


def expected_score(elo: float) -> float:
    """The expected score of a player ``elo`` logistic Elo points stronger: ``1 / (1 + 10^(-elo/400))``."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _shares(wins: int, draws: int, losses: int) -> tuple[float, tuple[float, float, float]]:
    """The games (regularised) and the shares of losses, draws and wins."""
    counts = [float(count) if count > 0 else EMPTY for count in (losses, draws, wins)]
    total = sum(counts)
    return total, (counts[0] / total, counts[1] / total, counts[2] / total)


def most_likely(shares: tuple[float, float, float], score: float) -> tuple[float, float, float]:
    """The trinomial (loss, draw, win) nearest the observed ``shares`` (most likely) whose expected score is ``score``.

    Solves the secular equation by bisection: its left side decreases from +∞ to
    -∞ between the poles ``-1 / (1 - score)`` and ``1 / score``.
    """
    shifted = [value - score for value in _VALUES]

    def side(x: float) -> float:
        return sum(share * shift / (1.0 + x * shift) for share, shift in zip(shares, shifted))

    low, high = -1.0 / shifted[2], -1.0 / shifted[0]
    for _ in range(200):
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if side(middle) > 0.0:
            low = middle
        else:
            high = middle
    x = (low + high) / 2.0
    return (shares[0] / (1.0 + x * shifted[0]), shares[1] / (1.0 + x * shifted[1]),
            shares[2] / (1.0 + x * shifted[2]))


def log_likelihood_ratio(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The GSPRT's log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) after these games (0 before any)."""
    if wins + draws + losses == 0:
        return 0.0
    games, shares = _shares(wins, draws, losses)
    under0 = most_likely(shares, expected_score(elo0))
    under1 = most_likely(shares, expected_score(elo1))
    return games * sum(share * (math.log(one) - math.log(zero)) for share, zero, one in zip(shares, under0, under1))


def approximate_llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The normal approximation of the log-likelihood ratio, ``n (s1 - s0)(2 s̄ - s0 - s1) / (2 σ²)`` (cutechess's).

    0 before any game and while every game has had the same result (σ² = 0).
    """
    games = wins + draws + losses
    if games == 0:
        return 0.0
    mean = (wins + draws / 2) / games
    variance = (wins * (1 - mean) ** 2 + draws * (0.5 - mean) ** 2 + losses * mean ** 2) / games
    if variance == 0:
        return 0.0
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return games * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)


class Sprt:
    """A sequential probability ratio test of player A against player B (see the module's description).

    ``Sprt(0, 10)`` tests "A is at least 10 Elo stronger" (H1) against "A is
    no stronger" (H0), with the chances of a wrong decision ``alpha`` (H1
    accepted wrongly) and ``beta`` (H0 accepted wrongly). Call :meth:`update`
    with A's cumulative wins, draws and losses after each game, and stop at
    the first decision.
    """

    def __init__(self, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05) -> None:
        if not elo0 < elo1:
            raise ValueError(f"elo0 must be below elo1 (got {elo0:g} and {elo1:g})")
        if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
            raise ValueError(f"alpha and beta must be between 0 and 1, and their sum below 1 (got {alpha:g} and "
                             f"{beta:g})")
        self.elo0 = float(elo0)
        self.elo1 = float(elo1)
        self.alpha = float(alpha)
        self.beta = float(beta)
        #: (lower, upper): H0 is accepted once ``llr`` is at or below the first, H1 at or above the second.
        self.bounds: tuple[float, float] = (math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha))
        #: The log-likelihood ratio after the last :meth:`update` (0 before any).
        self.llr = 0.0

    def update(self, wins: int, draws: int, losses: int) -> Decision | None:
        """Take A's results so far (cumulative counts); ``"H1"``, ``"H0"``, or None while undecided."""
        if min(wins, draws, losses) < 0:
            raise ValueError(f"counts cannot be negative (got {wins} wins, {draws} draws, {losses} losses)")
        self.llr = log_likelihood_ratio(wins, draws, losses, self.elo0, self.elo1)
        lower, upper = self.bounds
        if self.llr >= upper:
            return "H1"
        if self.llr <= lower:
            return "H0"
        return None

    def __repr__(self) -> str:
        return f"Sprt(elo0={self.elo0:g}, elo1={self.elo1:g}, alpha={self.alpha:g}, beta={self.beta:g})"
