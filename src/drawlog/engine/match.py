"""A match: seats, deals, who opens, scores and the target, under a game's rules.

The match checks what a log *claims* (a deal, a round's result, the final
scores) against what the rules and the replayed moves give. It works with
player names, and hands the moves to the round its game's
:class:`~drawlog.engine.profiles.Profile` starts (Draw's
:class:`~drawlog.engine.rounds.Round`, or All Fives'
:class:`~drawlog.engine.allfives.FivesRound`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, NamedTuple

from ..errors import Fault
from .claims import match_claims, revealed_claims, round_claims
from .profiles import DRAW, GameRules
from .rounds import Round
from .scoring import UNDECIDED, RoundScore
from .tiles import FULL_SET, label, labels, tile_bit, tile_count, tile_id

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4

Halves = tuple[int, int]


def hand_size(players: int) -> int:
    """Tiles dealt to each player in Draw: 7 with 2 or 3 players, 6 with 4."""
    return DRAW.standard_hand(players)


def check_players(players: Sequence[str]) -> tuple[list[Fault], list[str]]:
    """S101: 2–4 players, no duplicate id. Returns the faults and the seats to play with.

    More than 4 players is one S101 whatever the names (the work and the
    message stay small however long the list).
    """
    seats = list(dict.fromkeys(players))
    if len(players) > MAX_PLAYERS:
        return [Fault("S101", f"{len(players):,} players: the game is for 2 to 4 players")], seats
    faults = []
    if len(seats) != len(players):
        twice = sorted({name for name in players if players.count(name) > 1})
        listed = ", ".join(name or '""' for name in twice)  # (an empty name shown as "")
        faults.append(Fault("S101", f"players lists {listed} more than once"))
    if len(players) < MIN_PLAYERS:
        faults.append(Fault("S101", f"{len(players)} player{'s' if len(players) != 1 else ''}: the game is "
                                    f"for 2 to 4 players"))
    return faults, seats


#: Seatings lately built, by their names: matches of the same players share one (a match open is smaller).
_SEATINGS: Final[dict[tuple[str, ...], tuple[tuple[str, ...], dict[str, int]]]] = {}
#: The most seatings kept; past it they are forgotten and built afresh.
SEATINGS_KEPT: Final = 4096
#: Seatings whose names are longer than this, together, are not kept (4,096 of 800 KB each would be 3 GB).
SEATING_NAMES_KEPT: Final = 256


def seating(players: Sequence[str]) -> tuple[tuple[str, ...], dict[str, int]]:
    """The players by seat, as a tuple, and ``{name: seat}``: the same objects for the same names (do not modify)."""
    names = tuple(players)
    known = _SEATINGS.get(names)
    if known is None:
        known = names, {name: seat for seat, name in enumerate(names)}
        if sum(len(name) for name in names) <= SEATING_NAMES_KEPT:
            if len(_SEATINGS) >= SEATINGS_KEPT:
                _SEATINGS.clear()
            _SEATINGS[names] = known
    return known


class Deal(NamedTuple):
    """A checked deal, ready to start a round; ``logged_number``: the log's own number, when it differs."""

    number: int
    opener: int
    hands: list[int]
    stock: int
    stock_order: list[int] | None
    logged_number: int | None = None


class Match:
    """The replayed state of one match; ``scores`` are recomputed, never the log's.

    ``rules`` are the game and its settings (Draw's standard ones by default);
    ``target`` alone changes Draw's target.
    """

    def __init__(self, players: Sequence[str], target: int | None = None, rules: GameRules | None = None) -> None:
        #: The players by seat, and each player's seat (shared by matches of the same players: never modify it).
        self.names, self.seat_of = seating(players)
        #: How many players sit at the table.
        self.players = len(self.names)
        self.rules = rules if rules is not None else DRAW.rules_for(self.players, target=target)
        self.profile = self.rules.profile
        self.target = self.rules.target
        self._hand = self.rules.hand
        self._reserve = self.rules.reserve
        self.scores = [0] * len(self.names)
        self.round: Round | None = None
        self.rounds_started = 0
        self.round_open = False
        #: The number the log gave the round in play (S105 is reported once, at its round_start).
        self.logged_round = 0
        self.result = UNDECIDED
        #: The points each settled round gave, by seat, in order (the sums R306's message works out).
        self.round_points: list[tuple[int, ...]] = []

    def __repr__(self) -> str:
        scores = ", ".join(f"{name!r}: {score}" for name, score in zip(self.names, self.scores))
        result = self.result
        state = ("" if not result.decided else ", drawn" if result.winner is None
                 else f", winner={self.names[result.winner]!r}")
        return (f"Match({self.profile.name!r}, target={self.target}, rounds={self.rounds_started}, "
                f"scores={{{scores}}}{state})")

    def expected_opener(self) -> int | None:
        """The seat that must open the next round (None: any player, as in round 1)."""
        if self.round is None:
            return None
        return self.profile.next_opener(self.round)

    def outcome_text(self) -> str:
        """The scores so far, for messages: ``p1 54, p2 31``."""
        return ", ".join(f"{name} {score}" for name, score in zip(self.names, self.scores))

    # -- rounds ------------------------------------------------------------

    def close_open_round(self, what: str) -> list[Fault]:
        """R307: settle a round the log left without ``round_end`` before ``what`` came."""
        if not self.round_open:
            return []
        assert self.round is not None
        self.settle_round()
        return [Fault("R307", f"round {self.round.number} has no round_end before {what}")]

    def check_deal(
        self,
        number: int,
        opener: str,
        hands: Mapping[str, Sequence[Halves]],
        stock: Sequence[Halves] | None,
    ) -> tuple[list[Fault], Deal]:
        """S102–S105 and R305 for a ``round_start``; the deal to play is returned even when faulty."""
        faults, seat, hand_sets, undealt, order = self._checked_deal(number, opener, hands, stock)
        expected = self.rounds_started + 1
        return faults, Deal(expected, seat, hand_sets, undealt, order, number if number != expected else None)

    def deal_round(
        self,
        number: int,
        opener: str,
        hands: Mapping[str, Sequence[Halves]],
        stock: Sequence[Halves] | None,
    ) -> tuple[list[Fault], Round]:
        """:meth:`check_deal` and :meth:`start_round` in one: the faults, and the round begun (no Deal built)."""
        faults, seat, hand_sets, undealt, order = self._checked_deal(number, opener, hands, stock)
        expected = self.rounds_started + 1
        return faults, self._start(expected, seat, hand_sets, undealt, order,
                                   number if number != expected else None)

    def _checked_deal(
        self,
        number: int,
        opener: str,
        hands: Mapping[str, Sequence[Halves]],
        stock: Sequence[Halves] | None,
    ) -> tuple[list[Fault], int, list[int], int, list[int] | None]:
        """What :meth:`check_deal` finds: the faults, the opener's seat, the hands, the stock and its order."""
        faults = []
        if self.result.decided:
            faults.append(Fault("R305", f"a new round after the match was decided "
                                        f"({self.outcome_text()}; target {self.target})"))
        expected_number = self.rounds_started + 1
        if number != expected_number:
            faults.append(Fault("S105", f"round {number} starts; round {expected_number} is next"))
        faults += self._check_opener(opener)
        seat = self.seat_of.get(opener)
        if seat is None:
            expected = self.expected_opener()
            seat = expected if expected is not None else 0
        hand_sets, dealt, deal_faults = self._read_hands(hands)
        faults += deal_faults
        undealt = FULL_SET & ~dealt
        order = None
        if stock is not None:
            stock_faults, order = _check_stock(stock, undealt)
            faults += stock_faults
        return faults, seat, hand_sets, undealt, order

    def _check_opener(self, opener: str) -> list[Fault]:
        seat = self.seat_of.get(opener)
        if seat is None:
            return [Fault("S104", f"opener {opener} is not a player of this match")]
        expected = self.expected_opener()
        if expected is not None and seat != expected:
            return [Fault("S104", f"{opener} opens; "
                                  f"{self.profile.why_opener(self.round, expected)}")]  # type: ignore[arg-type]
        return []

    def _read_hands(self, hands: Mapping[str, Sequence[Halves]]) -> tuple[list[int], int, list[Fault]]:
        size = self._hand
        hand_sets = [0] * self.players
        dealt = 0
        clean = len(hands) == self.players
        for name, tiles in hands.items():
            seat = self.seat_of.get(name)
            mask = _bit_sum(tiles)
            if seat is None or len(tiles) != size or mask > FULL_SET or tile_count(mask) != size or mask & dealt:
                clean = False
                break
            hand_sets[seat] = mask
            dealt |= mask
        if clean:
            return hand_sets, dealt, []
        return self._read_faulty_hands(hands)

    def _read_faulty_hands(self, hands: Mapping[str, Sequence[Halves]]) -> tuple[list[int], int, list[Fault]]:
        faults: list[Fault] = []
        size = self.rules.hand
        hand_sets = [0] * self.players
        dealt = 0
        holder: dict[int, str] = {}
        # One fault for each tile dealt more than once, and one (tile -1) for all hands of names not
        # playing, placed where the first copy or stranger stands: its index in faults, message at the end.
        repeated: dict[int, int] = {}
        holders: dict[int, dict[str, int]] = {}
        strangers: list[str] = []
        for name, tiles in hands.items():
            seat = self.seat_of.get(name)
            if seat is None:
                if not strangers:
                    repeated[-1] = len(faults)
                    faults.append(Fault("S102", ""))
                strangers.append(name)
            elif len(tiles) != size:
                faults.append(Fault("S102", f"{name} is dealt {len(tiles)} tiles; each player gets "
                                            f"{size} with {self.players} players"))
            for halves in tiles:
                tile = tile_id(halves)
                if tile in holder:
                    if tile not in repeated:
                        repeated[tile] = len(faults)
                        holders[tile] = {holder[tile]: 1}
                        faults.append(Fault("S102", ""))
                    copies = holders[tile]
                    copies[name] = copies.get(name, 0) + 1
                    continue
                holder[tile] = name
                dealt |= 1 << tile
                if seat is not None:
                    hand_sets[seat] |= 1 << tile
        for tile, index in repeated.items():
            faults[index] = Fault("S102", _dealt_again(tile, holders[tile]) if tile >= 0 else _strangers(strangers))
        missing = [name for name in self.names if name not in hands]
        if missing:
            faults.append(Fault("S102", f"no hand is dealt to {', '.join(missing)}"))
        return hand_sets, dealt, faults

    def start_round(self, deal: Deal) -> Round:
        """Begin the round of a deal (checked or not) and make it the round in play."""
        return self._start(deal.number, deal.opener, deal.hands, deal.stock, deal.stock_order, deal.logged_number)

    def _start(self, number: int, opener: int, hands: list[int], stock: int, stock_order: list[int] | None,
               logged_number: int | None) -> Round:
        self.rounds_started = number
        self.logged_round = logged_number if logged_number is not None else number
        # (a match decided already plays no target: the rounds logged after it are R305)
        state = self.profile.new_round(self.names, opener, hands, stock, stock_order, number, self._reserve,
                                       None if self.result.decided else self.scores, self.target)
        self.round = state
        self.round_open = True
        return state

    def check_round_end(
        self,
        number: int,
        reason: str,
        winner: str | None,
        points: Mapping[str, int],
        hands: Mapping[str, Sequence[Halves]] | None,
    ) -> list[Fault]:
        """S105 and R301–R304: the log's claim of the round in play against the replay."""
        state = self.round
        assert state is not None
        faults = []
        if number != state.number and number != self.logged_round:
            faults.append(Fault("S105", f"round_end names round {number}; round {state.number} is in play"))
        if not state.is_over:
            stock = state.stock_left
            faults.append(Fault("R301", f"round_end while the round is not over: {self.names[state.turn]} "
                                        f"is to move with {stock} tile{'s' if stock != 1 else ''} in the stock"))
        else:
            score = state.score()
            if reason != state.reason:
                faults.append(Fault("R301", f"claims the round ended {reason}; it ended {state.reason}"))
            faults += round_claims(self, score, winner, points)
        if hands is not None:
            faults += revealed_claims(self, hands)
        return faults

    def settle_round(self) -> RoundScore:
        """Add the round in play's points to the scores and check the target.

        The first settled round that decides the match (Draw: a score reaches the
        target; All Fives: a play reached it, ending the round ``target``)
        decides it: rounds logged after it (R305) still add their points, but
        never change the result.
        """
        state = self.round
        assert state is not None
        score = state.score()
        for seat, points in enumerate(score.points):
            self.scores[seat] = self.scores[seat] + points
        self.round_points.append(score.points)
        self.round_open = False
        if not self.result.decided:
            self.result = self.profile.result_after(self.scores, self.target, state)
        return score

    # -- the end -----------------------------------------------------------

    def check_match_end(self, scores: Mapping[str, int], winner: str | None,
                        forfeit: str | None = None) -> list[Fault]:
        """R305 and R306: the log's claim of the final result against the replay.

        ``forfeit`` names the player who forfeits (format v1.2): no target is
        needed, and the result becomes the forfeit's (see :func:`~drawlog.engine.claims.match_claims`).
        """
        return match_claims(self, scores, winner, forfeit)


def _check_stock(stock: Sequence[Halves], undealt: int) -> tuple[list[Fault], list[int] | None]:
    """S103: the logged stock must be exactly the undealt tiles, each once."""
    order = _tile_ids(stock)
    total = 0
    for tile in order:
        total += 1 << tile
    if total == undealt and len(order) == tile_count(undealt):  # each undealt tile listed once
        return [], order
    listed = twice = 0
    for tile in order:
        twice |= listed & 1 << tile
        listed |= 1 << tile
    problems = []
    extra = listed & ~undealt
    if extra:
        problems.append(f"lists {labels(extra)}, which {'is' if extra.bit_count() == 1 else 'are'} dealt")
    if undealt & ~listed:
        problems.append(f"leaves out {labels(undealt & ~listed)}")
    if twice:
        problems.append(f"lists {labels(twice)} more than once")
    return [Fault("S103", f"stock {'; '.join(problems)}")], None


def _strangers(names: list[str]) -> str:
    """``a hand is dealt to zed, who is not a player of this match`` (or to several)."""
    if len(names) == 1:
        return f"a hand is dealt to {names[0]}, who is not a player of this match"
    listed = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) <= 4 \
        else f"{', '.join(names[:3])} and {len(names) - 3:,} more"
    return f"hands are dealt to {listed}, who are not players of this match"


def _dealt_again(tile: int, copies: dict[str, int]) -> str:
    """``[3|4] is dealt twice (to ann and bob)``: a tile dealt more than once, how often, and to whom."""
    times = sum(copies.values())
    names = list(copies)
    if len(names) == 1:
        where = f"in {names[0]}'s hand"
    else:
        where = "to " + (", ".join(names[:-1]) + f" and {names[-1]}" if len(names) <= 4
                         else f"{', '.join(names[:3])} and {len(names) - 3:,} more")
    return f"{label(tile)} is dealt {'twice' if times == 2 else f'{times:,} times'} ({where})"


def _bit_sum(tiles: Sequence[Halves]) -> int:
    """The sum of the tiles' bits: their bit set when each is listed once (a tile listed twice carries)."""
    total = 0
    if isinstance(tiles, list):  # as decoded: compiled code indexes a list directly
        for halves in tiles:
            total += tile_bit(halves)
    else:
        for halves in tiles:
            total += tile_bit(halves)
    return total


def _tile_ids(tiles: Sequence[Halves]) -> list[int]:
    """The ids of the tiles, in order."""
    if isinstance(tiles, list):  # as decoded: compiled code indexes a list directly
        return [tile_id(halves) for halves in tiles]
    return [tile_id(halves) for halves in tiles]


__all__ = ["Deal", "Match", "check_players", "hand_size"]
