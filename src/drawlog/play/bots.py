"""Built-in players for the simulator: each chooses among the engine's legal actions.

A bot sees what a player at the table sees: its own hand, the line, the
stock's size and the tiles already placed; never another player's hand.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..engine.rounds import Round
from ..engine.tiles import FULL_SET, PIPS, SUIT, TILE_ID, is_double

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
    """Sheds the heaviest playable tile; draws or passes only when it must."""

    name = "greedy"
    description = "plays its heaviest playable tile; draws only when it must"

    def choose(self, state: Round, seat: int, rng: random.Random) -> Action:
        return self.best_play(state, seat, lambda halves, end: PIPS[TILE_ID[halves]])


class TacticianBot(Bot):
    """Keeps its options open and counts what is out.

    Each legal play is scored by how many of the bot's remaining tiles would
    still fit the line (options), the pips it sheds, a bonus for getting rid of
    a double, and a bonus for ends the opponents are unlikely to match, judged
    from the tiles not yet seen (neither in its hand nor on the line).
    """

    name = "tactician"
    description = "keeps options open, sheds doubles and pips, blocks suits that are out"

    def choose(self, state: Round, seat: int, rng: random.Random) -> Action:
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


BOTS: dict[str, type[Bot]] = {cls.name: cls for cls in (RandomBot, GreedyBot, TacticianBot)}
