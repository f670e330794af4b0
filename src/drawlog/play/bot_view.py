"""What one seat may see, both ways: the referee's messages from the engine's state, and a state rebuilt from them.

:func:`turn_message` builds a :class:`~drawlog.play.protocol.Turn` from the
round in play for the seat to move: its own hand, the board, the open ends,
sizes and scores; never another hand or the stock's order. :func:`rebuild`
goes the other way for a bot program (``python -m drawlog.bots``): a round
whose own hand, line and sizes are the seat's view, with the tiles it cannot
see dealt to the others and the stock in an arbitrary way, so that the
built-in bots (which look at a :class:`~drawlog.engine.rounds.Round`) play by
the protocol exactly as they play in process.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine.allfives import NO_TILE, FivesRound
from ..engine.board import Board
from ..engine.match import Match
from ..engine.profiles import PROFILES
from ..engine.rounds import Round
from ..engine.tiles import FULL_SET, TILE_ID, TILES, bits, members
from .protocol import (
    DrawAction,
    HouseRulesInfo,
    MatchBegins,
    PassAction,
    PlayAction,
    RoundBegins,
    Seen,
    Turn,
)


def hand_list(hand: int) -> list[tuple[int, int]]:
    """A hand (bit set) as a list of tiles, lowest first."""
    return [TILES[tile] for tile in members(hand)]


def scores_now(match: Match, state: Round | None) -> dict[str, int]:
    """The match scores with the round in play's play points (All Fives) added."""
    points = state.play_points if state is not None and not state.is_over else [0] * match.players
    return {name: score + extra for name, score, extra in zip(match.names, match.scores, points)}


def legal_actions(state: Round, seat: int) -> list[PlayAction | DrawAction | PassAction]:
    """Every legal action of ``seat``: its plays (one per distinct line), then draw or pass when allowed."""
    actions: list[PlayAction | DrawAction | PassAction] = [PlayAction(tile=halves, end=end)  # type: ignore[arg-type]
                                                          for halves, end in state.legal_plays(seat)]
    if state.can_draw(seat):
        actions.append(DrawAction())
    elif state.can_pass(seat):
        actions.append(PassAction())
    return actions


def drawable(state: Round) -> int:
    """How many more tiles may be drawn from the stock (the reserve left out)."""
    return max(0, state.stock_left - state.reserve)


def round_message(match_id: str, match: Match, state: Round, seat: int) -> RoundBegins:
    """The deal as ``seat`` sees it."""
    return RoundBegins(match=match_id, round=state.number, opener=match.names[state.opener],
                       hand=hand_list(state.hands[seat]),
                       hand_sizes={name: hand.bit_count() for name, hand in zip(match.names, state.hands)},
                       stock=state.stock_left, scores=scores_now(match, state))


def turn_message(match_id: str, match: Match, state: Round, seat: int, board: Board, ply: int,
                 events: list[Seen]) -> Turn:
    """The turn of ``seat``: its view of the table and its legal actions."""
    must = state.must_place if isinstance(state, FivesRound) else NO_TILE
    return Turn(match=match_id, round=state.number, ply=ply, hand=hand_list(state.hands[seat]),
                line=board.as_data(), ends={end: value for end, value in board.ends().items() if value is not None},
                stock=state.stock_left, drawable=drawable(state),
                hand_sizes={name: hand.bit_count() for name, hand in zip(match.names, state.hands)},
                scores=scores_now(match, state), must_place=TILES[must] if must != NO_TILE else None,
                events=events, legal=legal_actions(state, seat))


def seen_by(move: Seen, seat_name: str) -> Seen:
    """``move`` as ``seat_name`` may see it: another player's drawn tile hidden."""
    if move.action == "draw" and move.player != seat_name:
        return Seen(action="draw", player=move.player)
    return move


# -- the bot's side ------------------------------------------------------------


class SeatMemory:
    """What a bot program remembers of the match in play: the seating and the placements of the round."""

    def __init__(self, variant: str, rules: HouseRulesInfo) -> None:
        self.profile = PROFILES[variant]
        self.rules = rules
        self.names: tuple[str, ...] = ()
        self.seat = 0
        self.opener = 0
        self.placements: list[tuple[tuple[int, int], str]] = []

    def match(self, message: MatchBegins) -> None:
        """A new match: remember the seating."""
        self.names = tuple(message.players)
        self.seat = message.seat

    def round(self, message: RoundBegins) -> None:
        """A new round: forget the placements."""
        self.opener = self.names.index(message.opener)
        self.placements = []

    def note(self, events: Sequence[Seen]) -> None:
        """Remember the placements among ``events``."""
        for move in events:
            if move.action == "play" and move.tile is not None:
                self.placements.append((move.tile, move.end or "left"))

    def rebuild(self, turn: Turn) -> Round:
        """A round that shows this seat what the turn shows it (the unseen tiles dealt arbitrarily)."""
        self.note(turn.events)
        hand = bits(TILE_ID[(tile[0], tile[1])] for tile in turn.hand)
        placed = bits(TILE_ID[tile] for tile, _ in self.placements)
        unseen = list(members(FULL_SET & ~hand & ~placed))
        hands = []
        for seat, name in enumerate(self.names):
            if seat == self.seat:
                hands.append(hand)
            else:
                size = turn.hand_sizes[name]
                hands.append(bits(unseen[:size]))
                del unseen[:size]
        order = unseen
        state = self.profile.new_round(self.names, self.opener, hands, bits(order), list(order), turn.round,
                                       self.rules.reserve)
        state.stock_left = turn.stock
        line = state.line
        for halves, end in self.placements:
            if isinstance(state, FivesRound):
                state.tableau.place_tile(halves, end)
            else:
                line.extend(halves[0], halves[1], end)
        state.turn = self.seat
        if isinstance(state, FivesRound) and turn.must_place is not None:
            state.must_place = TILE_ID[(turn.must_place[0], turn.must_place[1])]
        return state
