"""One refereed match: seats (built-in bots in process, or bot programs), the engine, and the log it makes.

Every move goes through the engine. A built-in bot chooses among the legal
actions, as in :mod:`~drawlog.play.simulate`; a bot program gets its view (a
``turn`` message) and answers one action, which is checked: an illegal one is
logged as the bot sent it, carried out as a replay would (so the log's
``match_end`` claims what ``drawlog validate`` recomputes) and the match ends
with a ``forfeit`` (format v1.2). The codes ``validate`` will report for it are
the engine's own (:attr:`MatchRecord.codes`).

Deals come from ``deal_seed`` and the round's number alone, so a duplicate
match (the same seed, the seats rotated) deals every round the same.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..engine.allfives import FivesRound
from ..engine.board import Board
from ..engine.claims import forfeit_result
from ..engine.match import Deal, Match
from ..engine.profiles import GameRules
from ..engine.rounds import Round
from ..engine.tiles import TILE_COUNT, TILES, bits
from ..log.events import (
    Draw,
    Event,
    Forfeit,
    MatchEnd,
    MatchStart,
    Pass,
    Play,
    RoundEnd,
    RoundStart,
)
from .bot_view import round_message, scores_now, seen_by, turn_message
from .bots import Bot
from .protocol import (
    DrawAction,
    MatchBegins,
    MatchOver,
    PassAction,
    PlayAction,
    RoundOver,
    Seen,
    encode,
)
from .referee import BotFailure, BotProcess
from .simulate import MAX_ROUNDS, EndlessMatches, _logged_rules, encode_item


class Builtin:
    """A built-in bot playing in process: it reads the engine's state directly."""

    program = False

    def __init__(self, name: str, bot: Bot, seed: int | str) -> None:
        self.name = name
        self.bot = bot
        self.rng = random.Random(seed)


class Program:
    """A bot program at the table: its process and its time per move (seconds)."""

    program = True

    def __init__(self, name: str, process: BotProcess, seconds: float) -> None:
        self.name = name
        self.process = process
        self.seconds = seconds
        self.seen: list[Seen] = []

    def tell(self, message: object) -> None:
        """Send a message that needs no answer (:class:`BotFailure` when the bot is gone or not reading)."""
        self.process.send(encode(message), self.seconds)  # type: ignore[arg-type]


Seat = Builtin | Program


class Forfeited(Exception):
    """A seat forfeits: why, and the move to log (the illegal move as sent), if any."""

    def __init__(self, seat: int, reason: str, detail: str, codes: Sequence[str] = ()) -> None:
        super().__init__(detail)
        self.seat = seat
        self.reason = reason
        self.detail = detail
        self.codes = list(codes)


@dataclass
class MatchRecord:
    """A finished match: its lines, who sat where, the result, and the forfeit if any."""

    match: str
    lines: bytes
    bots: tuple[str, ...]
    scores: tuple[int, ...]
    winner: int | None
    forfeit: tuple[int, str, str] | None = None
    #: The codes ``drawlog validate`` reports for this match's log (an illegal move's).
    codes: list[str] = field(default_factory=list)


def deal_for(deal_seed: str, number: int, players: int, hand: int) -> tuple[list[list[int]], list[int], int]:
    """Round ``number``'s deal of ``deal_seed``: hands by seat, the stock in order, and a random seat."""
    rng = random.Random(f"{deal_seed}/{number}")
    tiles = list(range(TILE_COUNT))
    rng.shuffle(tiles)
    return [tiles[seat * hand:(seat + 1) * hand] for seat in range(players)], tiles[players * hand:], \
        rng.randrange(players)


class Referee:
    """Plays one match between ``seats`` under ``rules`` and makes its log."""

    def __init__(self, match_id: str, seats: Sequence[Seat], rules: GameRules, deal_seed: str,
                 meta: dict[str, object]) -> None:
        self.match_id = match_id
        self.seats = list(seats)
        self.rules = rules
        self.deal_seed = deal_seed
        self.names = tuple(seat.name for seat in seats)
        self.match = Match(self.names, rules=rules)
        self.events: list[Event] = [MatchStart(match=match_id, players=list(self.names),
                                               variant=rules.profile.name,  # type: ignore[arg-type]
                                               rules=_logged_rules(rules, len(seats)), meta=meta)]
        self.programs = [seat for seat in self.seats if isinstance(seat, Program)]
        self.board: Board | None = None
        self.ply = 0

    def play(self) -> MatchRecord:
        """Play the match to its end, or to a forfeit."""
        try:
            for index, seat in enumerate(self.seats):
                if isinstance(seat, Program):
                    self._tell(index, MatchBegins(match=self.match_id, players=list(self.names), you=seat.name,
                                                  seat=index))
            while not self.match.result.decided:
                if self.match.rounds_started == MAX_ROUNDS:
                    raise EndlessMatches(f"match {self.match_id} is undecided after {MAX_ROUNDS:,} rounds")
                self._round()
        except Forfeited as forfeit:
            return self._forfeit(forfeit)
        match = self.match
        winner = match.result.winner
        end = MatchEnd(match=self.match_id, scores=dict(zip(self.names, match.scores)),
                       winner=self.names[winner] if winner is not None else None)
        self.events.append(end)
        self._goodbye(end)
        return MatchRecord(self.match_id, self._lines(), self.names, tuple(match.scores), winner)

    def forfeit_at_start(self, seat: int, failure: BotFailure) -> MatchRecord:
        """The match of a bot program that failed to start (or to greet): forfeited before the first deal."""
        return self._forfeit(Forfeited(seat, failure.reason, failure.detail), tell=False)

    # -- rounds ----------------------------------------------------------------

    def _round(self) -> None:
        match = self.match
        number = match.rounds_started + 1
        players = len(self.names)
        hands, order, random_seat = deal_for(self.deal_seed, number, players, self.rules.hand)
        expected = match.expected_opener() if number > 1 else None
        opener = expected if expected is not None else random_seat
        state = match.start_round(Deal(number, opener, [bits(hand) for hand in hands], bits(order), order))
        self.events.append(RoundStart(match=self.match_id, round=number, opener=self.names[opener],
                                      hands={name: [TILES[tile] for tile in hand]
                                             for name, hand in zip(self.names, hands)},
                                      stock=[TILES[tile] for tile in order]))
        self.ply = 0
        if self.programs:
            self.board = Board(isinstance(state, FivesRound))
            for index, seat in enumerate(self.seats):
                if isinstance(seat, Program):
                    seat.seen = []
                    self._tell(index, round_message(self.match_id, match, state, index))
        while not state.is_over:
            seat_index = state.turn
            seat = self.seats[seat_index]
            self.ply += 1
            if isinstance(seat, Builtin):
                self._builtin_move(state, seat_index, seat)
            else:
                self._program_move(state, seat_index, seat)
        score = match.settle_round()
        winner = self.names[score.winner] if score.winner is not None else None
        points = dict(zip(self.names, score.end_points))
        self.events.append(RoundEnd(match=self.match_id, round=number, reason=state.reason,  # type: ignore[arg-type]
                                    winner=winner, points=points))
        for index, seat in enumerate(self.seats):
            if isinstance(seat, Program):
                self._tell(index, RoundOver(match=self.match_id, round=number, reason=state.reason,  # type: ignore
                                            winner=winner, points=points, scores=scores_now(match, None),
                                            events=seat.seen))
                seat.seen = []

    def _builtin_move(self, state: Round, seat: int, player: Builtin) -> None:
        """A built-in bot's move, through the engine's checked actions (as the simulator plays)."""
        name = self.names[seat]
        action = player.bot.choose(state, seat, player.rng)
        if action[0] == "play":
            _, halves, end = action
            opening = state.line.is_empty
            placement = state.play(seat, halves, end)
            points = state.last_points if isinstance(state, FivesRound) else None
            self.events.append(Play(match=self.match_id, player=name, tile=halves, end=end, points=points))
            if self.programs:
                self._saw(Seen(action="play", player=name, tile=halves,
                               end="left" if opening else placement.end,  # type: ignore[arg-type]
                               points=state.last_points), halves if opening else TILES[placement.tile])
        elif action[0] == "draw":
            tile = TILES[state.next_stock_tile()]  # type: ignore[index]
            state.draw(seat, tile)
            self.events.append(Draw(match=self.match_id, player=name, tile=tile))
            if self.programs:
                self._saw(Seen(action="draw", player=name, tile=tile))
        else:
            state.pass_turn(seat)
            self.events.append(Pass(match=self.match_id, player=name))
            if self.programs:
                self._saw(Seen(action="pass", player=name))

    def _saw(self, move: Seen, laid: tuple[int, int] | None = None) -> None:
        """Tell the programs' memories of a move (and lay a placed tile on the board)."""
        if not self.programs:
            return
        if laid is not None and move.end is not None and self.board is not None:
            self.board.place(laid, move.end)
        for program in self.programs:
            program.seen.append(seen_by(move, program.name))

    def _program_move(self, state: Round, seat: int, player: Program) -> None:
        """Ask a bot program for its move and referee it."""
        process = player.process
        try:
            if process.unasked():
                raise BotFailure("protocol", "wrote a line when it was not its turn")
            turn = turn_message(self.match_id, self.match, state, seat, self.board, self.ply,  # type: ignore[arg-type]
                                player.seen)
            player.seen = []
            process.send(encode(turn), player.seconds)
            answer = process.receive(player.seconds)
            if process.unasked():
                raise BotFailure("protocol", "wrote more than one line for its turn")
        except BotFailure as failure:
            raise Forfeited(seat, failure.reason, failure.detail) from None
        name = self.names[seat]
        if isinstance(answer, PlayAction):
            self._program_play(state, seat, name, answer)
        elif isinstance(answer, DrawAction):
            stock_tile = state.next_stock_tile()
            tile = TILES[stock_tile] if stock_tile is not None else self._absent_tile(state)
            faults = state.try_draw(seat, tile)
            self.events.append(Draw(match=self.match_id, player=name, tile=tile))
            if faults:
                raise Forfeited(seat, "illegal-move", f"draws: {faults[0].message}", [f.code for f in faults])
            self._saw(Seen(action="draw", player=name, tile=tile))
        elif isinstance(answer, PassAction):
            faults = state.try_pass(seat)
            self.events.append(Pass(match=self.match_id, player=name))
            if faults:
                raise Forfeited(seat, "illegal-move", f"passes: {faults[0].message}", [f.code for f in faults])
            self._saw(Seen(action="pass", player=name))
        else:
            raise Forfeited(seat, "protocol", f"answered its turn with {type(answer).__name__.lower()}")

    def _program_play(self, state: Round, seat: int, name: str, answer: PlayAction) -> None:
        halves = (answer.tile[0], answer.tile[1])
        opening = state.line.is_empty
        faults, placement = state.check_play(seat, halves, answer.end)
        if faults:
            self.events.append(Play(match=self.match_id, player=name, tile=halves, end=answer.end))
            state.try_play(seat, halves, answer.end)  # carried out as far as a replay carries it out
            raise Forfeited(seat, "illegal-move", f"plays {list(halves)}: {faults[0].message}",
                            [fault.code for fault in faults])
        assert placement is not None
        state.apply_play(seat, placement)
        points = state.last_points if isinstance(state, FivesRound) else None
        self.events.append(Play(match=self.match_id, player=name, tile=halves, end=answer.end, points=points))
        self._saw(Seen(action="play", player=name, tile=halves,
                       end="left" if opening else placement.end,  # type: ignore[arg-type]
                       points=state.last_points), halves if opening else TILES[placement.tile])

    @staticmethod
    def _absent_tile(state: Round) -> tuple[int, int]:
        """A tile to log for a draw from an empty stock: one on the line, else the first tile."""
        placed = state.on_line()
        return TILES[(placed & -placed).bit_length() - 1] if placed else TILES[0]

    # -- messages and the end --------------------------------------------------

    def _tell(self, seat: int, message: object) -> None:
        program = self.seats[seat]
        assert isinstance(program, Program)
        try:
            program.tell(message)
        except BotFailure as failure:
            raise Forfeited(seat, failure.reason, failure.detail) from None

    def _goodbye(self, end: MatchEnd) -> None:
        """Tell every program still at the table how the match ended (one that fails now is stopped)."""
        forfeit = end.forfeit
        for index, seat in enumerate(self.seats):
            if not isinstance(seat, Program) or (forfeit is not None and forfeit.player == seat.name
                                                 and forfeit.reason != "illegal-move"):
                continue
            try:
                seat.tell(MatchOver(match=self.match_id, scores=end.scores, winner=end.winner,
                                    forfeit=None if forfeit is None else
                                    {"player": forfeit.player, "reason": forfeit.reason}))  # type: ignore[arg-type]
            except BotFailure:
                seat.process.stop(polite=False)

    def _forfeit(self, forfeit: Forfeited, tell: bool = True) -> MatchRecord:
        """End the match with ``forfeit``: the open round closed as a replay closes it, the scores as they stand
        (``tell``: the programs at the table hear of it; not when the match never began for them)."""
        match = self.match
        seat = self.seats[forfeit.seat]
        if isinstance(seat, Program) and forfeit.reason != "illegal-move":
            seat.process.stop(polite=False)
        match.close_open_round("match_end")
        result = forfeit_result(match.scores, forfeit.seat)
        winner = result.winner
        end = MatchEnd(match=self.match_id, scores=dict(zip(self.names, match.scores)),
                       winner=self.names[winner] if winner is not None else None,
                       forfeit=Forfeit(player=self.names[forfeit.seat], reason=forfeit.reason))  # type: ignore
        self.events.append(end)
        if tell:
            self._goodbye(end)
        return MatchRecord(self.match_id, self._lines(), self.names, tuple(match.scores), winner,
                           (forfeit.seat, forfeit.reason, forfeit.detail), forfeit.codes)

    def _lines(self) -> bytes:
        return b"".join(encode_item(event) for event in self.events)
