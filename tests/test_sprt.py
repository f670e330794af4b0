"""``drawlog.play.sprt``: the GSPRT's log-likelihood ratio, its bounds and its decisions.

The ratio is derived here on its own: each hypothesis's most likely trinomial
is found by maximising the log-likelihood over the one free share (the draws)
by ternary search, not through the secular equation the module solves.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drawlog.play.sprt import Sprt, approximate_llr, expected_score, log_likelihood_ratio


def _best_log_likelihood(counts: tuple[float, float, float], score: float) -> float:
    """max over trinomials (loss, draw, win) of expected score ``score`` of Σ count · ln(share), by ternary search.

    With ``t`` the draw share: win ``score - t/2``, loss ``1 - score - t/2``; the log-likelihood is concave in t.
    """
    def value(t: float) -> float:
        shares = (1 - score - t / 2, t, score - t / 2)
        return sum(count * math.log(share) for count, share in zip(counts, shares))

    low, high = 1e-15, min(2 * score, 2 * (1 - score)) - 1e-15
    for _ in range(300):
        left, right = low + (high - low) / 3, high - (high - low) / 3
        if value(left) < value(right):
            low = left
        else:
            high = right
    return value((low + high) / 2)


def independent_llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The GSPRT ratio from its definition: the best log-likelihood under H1 minus the best under H0."""
    counts = tuple(float(count) if count else 1e-3 for count in (losses, draws, wins))  # fishtest's regularisation
    s0, s1 = (1 / (1 + 10 ** (-elo / 400)) for elo in (elo0, elo1))
    return _best_log_likelihood(counts, s1) - _best_log_likelihood(counts, s0)


@pytest.mark.parametrize(("wins", "draws", "losses", "elo0", "elo1"), [
    (60, 20, 40, 0, 10),
    (4307, 8620, 4063, 0, 3),
    (10, 0, 0, 0, 10),
    (1, 0, 0, 0, 10),
    (295, 0, 5, 0, 50),
    (100, 0, 100, 0, 50),
    (3, 90, 7, -5, 5),
])
def test_the_ratio_is_the_difference_of_the_best_log_likelihoods(wins, draws, losses, elo0, elo1):
    assert log_likelihood_ratio(wins, draws, losses, elo0, elo1) == \
        pytest.approx(independent_llr(wins, draws, losses, elo0, elo1), rel=1e-6, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 3000), st.integers(0, 3000), st.integers(0, 3000), st.floats(-200, 200),
       st.floats(1, 200))
def test_the_ratio_agrees_with_its_definition_for_any_counts(wins, draws, losses, elo0, width):
    if wins + draws + losses == 0:
        assert log_likelihood_ratio(0, 0, 0, elo0, elo0 + width) == 0.0
        return
    assert log_likelihood_ratio(wins, draws, losses, elo0, elo0 + width) == \
        pytest.approx(independent_llr(wins, draws, losses, elo0, elo0 + width), rel=1e-5, abs=1e-7)


def test_a_published_ratio():
    """A third-party GSPRT calculator prints ``LLR: 2.99 (-2.94, 2.94)`` for 4307 wins, 8620 draws and 4063 losses
    tested between 0 and 3 Elo; the normal approximation gives the same there."""
    test = Sprt(0, 3)
    assert test.update(4307, 8620, 4063) == "H1"
    assert round(test.llr, 2) == 2.99
    assert [round(bound, 2) for bound in test.bounds] == [-2.94, 2.94]
    assert approximate_llr(4307, 8620, 4063, 0, 3) == pytest.approx(test.llr, rel=1e-3)


def test_the_normal_approximation_from_its_formula():
    wins, draws, losses = 60, 20, 40
    mean = (60 + 10) / 120
    variance = (60 * (1 - mean) ** 2 + 20 * (0.5 - mean) ** 2 + 40 * mean ** 2) / 120
    s0, s1 = 0.5, 1 / (1 + 10 ** (-10 / 400))
    assert approximate_llr(wins, draws, losses, 0, 10) == pytest.approx(120 * (s1 - s0) * (2 * mean - s0 - s1)
                                                                        / (2 * variance), rel=1e-12)
    assert approximate_llr(5, 0, 0, 0, 10) == 0.0  # one result only: no variance


def test_the_exact_ratio_stays_small_when_every_game_has_one_result():
    """One win is not proof: the approximation would divide by a variance of 0 (and fishtest's regularised
    approximation says 5.7, past the bound); the ratio says 0.028."""
    assert log_likelihood_ratio(1, 0, 0, 0, 10) == pytest.approx(0.0284, abs=1e-4)
    assert Sprt(0, 10).update(1, 0, 0) is None


def test_the_ratio_turns_over_when_the_players_change_places():
    """B's results with the hypotheses as B sees them (-elo1, -elo0) give the opposite ratio."""
    assert log_likelihood_ratio(40, 20, 60, -10, 0) == pytest.approx(-log_likelihood_ratio(60, 20, 40, 0, 10),
                                                                     rel=1e-9)


def test_expected_score():
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
    assert expected_score(-400) == pytest.approx(1 / 11)


@pytest.mark.parametrize(("alpha", "beta"), [(0.05, 0.05), (0.05, 0.1), (0.01, 0.2)])
def test_the_bounds_come_from_alpha_and_beta(alpha, beta):
    test = Sprt(0, 5, alpha, beta)
    assert test.bounds == (pytest.approx(math.log(beta / (1 - alpha))), pytest.approx(math.log((1 - beta) / alpha)))
    assert (test.elo0, test.elo1, test.alpha, test.beta) == (0, 5, alpha, beta)


def test_update_decides_at_the_bounds_and_keeps_the_ratio():
    test = Sprt(0, 50)
    assert test.llr == 0.0 and test.update(0, 0, 0) is None and test.llr == 0.0
    assert test.update(30, 0, 10) is None  # 2.47: not yet
    assert test.llr == pytest.approx(log_likelihood_ratio(30, 0, 10, 0, 50))
    assert test.update(36, 0, 12) == "H1" and test.llr >= test.bounds[1]
    assert test.update(200, 0, 200) == "H0" and test.llr <= test.bounds[0]
    assert test.update(0, 0, 40) == "H0"


@pytest.mark.parametrize(("arguments", "words"), [
    ((10, 0), "elo0 must be below elo1"),
    ((0, 0), "elo0 must be below elo1"),
    ((0, 10, 0.0, 0.05), "alpha and beta"),
    ((0, 10, 0.6, 0.5), "alpha and beta"),
    ((0, 10, 0.05, 1.0), "alpha and beta"),
])
def test_bad_settings_are_refused(arguments, words):
    with pytest.raises(ValueError, match=words):
        Sprt(*arguments)


def test_negative_counts_are_refused():
    with pytest.raises(ValueError, match="cannot be negative"):
        Sprt(0, 10).update(1, -1, 0)


# -- between built-in bots --------------------------------------------------------------------------------


def _decide(bots: tuple[str, str], seed: int, test: Sprt, cap: int = 3000) -> tuple[str | None, int]:
    """Two-player Draw matches of ``bots`` (A first) until ``test`` decides: the decision and the matches played."""
    from drawlog.play.simulate import SimulationOptions, Simulator

    simulator = Simulator(seed, SimulationOptions(players=2, bots=bots))
    results = [0, 0, 0]  # A's wins, draws, losses
    for played in range(1, cap + 1):
        simulator.match(f"m{played}")
        winner = simulator.outcome.winner  # type: ignore[union-attr]
        results[1 if winner is None else 0 if winner == 0 else 2] += 1
        decision = test.update(*results)
        if decision is not None:
            return decision, played
    return None, cap


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_greedy_is_found_stronger_than_random(seed):
    decision, played = _decide(("greedy", "random"), seed, Sprt(0, 50))
    assert decision == "H1" and played < 100


def test_a_bot_against_itself_is_found_no_stronger_in_most_runs():
    decisions = [_decide(("random", "random"), seed, Sprt(0, 100))[0] for seed in range(1, 7)]
    assert decisions.count("H0") >= 5, decisions
