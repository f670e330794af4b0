"""Built-in players for the simulator: each chooses among the engine's legal actions.

A bot sees what a player at the table sees: its own hand, the line, the
stock's size and the tiles already placed; never another player's hand.
Each bot plays Draw and All Fives; in All Fives it previews what a placement
scores on a copy of the tableau (:func:`points_after`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..engine.allfives import FivesRound
from ..engine.rounds import Round
from ..engine.tableau import Tableau, scored
from ..engine.tiles import FULL_SET, PIPS, SUIT, TILE_ID, TILES, is_double, members

DRAW = ("draw",)
PASS = ("pass",)
#: ``("draw",)``, ``("pass",)`` or ``("play", halves, end)``.
Action = tuple


class Bot:
    """Chooses an action for the seat to move; subclasses set ``name`` and ``description``."""

    name = "bot"
    description = ""

    def choose(self, state: Round, seat: int, rng: random.Random) -> Action:
        """A legal action for ``seat``, which is to move in ``state``."""
        raise NotImplementedError

    @staticmethod
    def forced(state: Round, seat: int) -> Action:
        """The action of a player with nothing to place: draw while allowed, else pass."""
        return DRAW if state.can_draw(seat) else PASS

    @classmethod
    def best_play(cls, state: Round, seat: int, value: Callable[[tuple[int, int], str], float]) -> Action:
        """The legal play with the highest ``value(halves, end)``; draw or pass when there is none."""
        plays = state.legal_plays(seat)
        if not plays:
            return cls.forced(state, seat)
        halves, end = max(plays, key=lambda play: value(*play))
        return ("play", halves, end)


def placed(tableau: Tableau, halves: tuple[int, int], end: str) -> Tableau:
    """A copy of ``tableau`` with the tile placed on ``end``."""
    after = tableau.copy()
    after.place_tile(halves, end)
    return after


def points_after(tableau: Tableau, halves: tuple[int, int], end: str) -> int:
    """What placing the tile on ``end`` would score in All Fives."""
    return scored(placed(tableau, halves, end).count())


def replies(tableau: Tableau, tiles: int) -> list[int]:
    """For each of ``tiles`` that would score placed next on ``tableau``, the most it would score."""
    found = []
    for tile in members(tiles & tableau.fitting()):
        halves = TILES[tile]
        best = max(points_after(tableau, halves, end) for end in tableau.ends_for(halves))
        if best:
            found.append(best)
    return found


def expected_best(points: list[int], chance: float) -> float:
    """The expected best of ``points`` when each is available with probability ``chance``, independently."""
    expected, missing = 0.0, 1.0
    for value in sorted(points, reverse=True):
        expected += value * chance * missing
        missing *= 1.0 - chance
    return expected


class RandomBot(Bot):
    """Uniform over every legal action, voluntary draws (and a draw before the opening tile) included."""

    name = "random"
    description = "uniform over legal actions, voluntary draws included"

    def choose(self, state: Round, seat: int, rng: random.Random) -> Action:
        actions: list[Action] = [("play", halves, end) for halves, end in state.legal_plays(seat)]
        if state.can_draw(seat):
            actions.append(DRAW)
        return rng.choice(actions) if actions else PASS


class GreedyBot(Bot):
    """Scores the most it can now (All Fives), then sheds the heaviest tile; draws or passes only when it must."""

    name = "greedy"
    description = "scores the most now, else plays its heaviest tile; draws only when it must"

    def choose(self, state: Round, seat: int, rng: random.Random) -> Action:
        if isinstance(state, FivesRound):
            tableau = state.tableau
            return self.best_play(state, seat, lambda halves, end: 100 * points_after(tableau, halves, end)
                                  + PIPS[TILE_ID[halves]])
        return self.best_play(state, seat, lambda halves, end: PIPS[TILE_ID[halves]])


class TacticianBot(Bot):
    """Keeps its options open and counts what is out.

    Each legal play is scored by how many of the bot's remaining tiles would
    still fit the line (options), the pips it sheds, a bonus for getting rid of
    a double, and a bonus for ends the opponents are unlikely to match, judged
    from the tiles not yet seen (neither in its hand nor on the line).

    In All Fives a play is worth the points it scores now, less the points the
    next player could expect to score in reply with the unseen tiles (each held
    with the share of them their hand size gives), plus a little for its own
    next scoring play, options, pips shed and doubles shed; going out comes first.
    """

    name = "tactician"
    description = "keeps options open, sheds doubles and pips, blocks suits that are out; weighs points " \
                  "against the next player's reply"

    def choose(self, state: Round, seat: int, rng: random.Random) -> Action:
        if isinstance(state, FivesRound):
            return self._choose_fives(state, seat)
        hand = state.hands[seat]
        unseen = FULL_SET & ~hand & ~state.on_line()

        def value(halves: tuple[int, int], end: str) -> float:
            tile = TILE_ID[halves]
            left, right = state.line.resolve(halves, end)  # type: ignore[misc]
            rest = hand & ~(1 << tile)
            options = (rest & (SUIT[left] | SUIT[right])).bit_count()
            unseen_fitting = (unseen & (SUIT[left] | SUIT[right])).bit_count()
            return 3.0 * options + 0.5 * PIPS[tile] + 4.0 * is_double(tile) - 0.6 * unseen_fitting

        return self.best_play(state, seat, value)

    def _choose_fives(self, state: FivesRound, seat: int) -> Action:
        """All Fives: points now, less the next player's likely reply, with options and doubles shed."""
        hand = state.hands[seat]
        unseen = FULL_SET & ~hand & ~state.on_line()
        following = (seat + 1) % len(state.hands)
        # the next player's hand size is public: the chance that a given unseen tile is theirs
        share = min(1.0, state.hands[following].bit_count() / unseen.bit_count()) if unseen else 0.0
        tableau = state.tableau

        def value(halves: tuple[int, int], end: str) -> float:
            tile = TILE_ID[halves]
            after = placed(tableau, halves, end)
            points = scored(after.count())
            rest = hand & ~(1 << tile)
            if not rest:
                return 1000.0 + points
            threat = expected_best(replies(after, unseen), share)
            follow_up = max(replies(after, rest), default=0)
            options = (rest & after.fitting()).bit_count()
            return points - threat + 0.3 * follow_up + 2.0 * options + 0.4 * PIPS[tile] + 3.0 * is_double(tile)

        return self.best_play(state, seat, value)


BOTS: dict[str, type[Bot]] = {cls.name: cls for cls in (RandomBot, GreedyBot, TacticianBot)}
