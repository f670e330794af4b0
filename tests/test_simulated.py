"""Property tests: simulated matches validate clean; every injected fault is caught where it was put."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drawlog.check.replay import Observer
from drawlog.check.validator import Validator
from drawlog.log.events import MatchEnd, RoundEnd
from drawlog.play.simulate import BOTS, SimulationOptions, Simulator, encode_events, interleave

player_counts = st.sampled_from([2, 3, 4, "mixed"])
bot_lineups = st.lists(st.sampled_from(sorted(BOTS)), min_size=1, max_size=4)
seeds = st.integers(min_value=0, max_value=2**32 - 1)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Finished(Observer):
    """An observer that keeps the table of every match that ends."""

    def __init__(self) -> None:
        self.tables: list = []

    def match_ended(self, table, claim, line) -> None:
        self.tables.append(table)


def run(lines: list[bytes]) -> tuple[list, Validator, list]:
    validator = Validator()
    finished = Finished()
    validator.replay.observer = finished
    return list(validator.validate_lines(lines, "sim.jsonl")), validator, finished.tables


@SETTINGS
@given(seed=seeds, players=player_counts, bots=bot_lineups, log_stock=st.booleans(), log_seq=st.booleans(),
       reveal=st.booleans(), omit_end=st.booleans())
def test_every_simulated_match_validates_clean(seed, players, bots, log_stock, log_seq, reveal, omit_end):
    options = SimulationOptions(players=players, bots=bots, log_stock=log_stock, log_seq=log_seq,
                                reveal_hands=reveal, omit_optional_end=omit_end)
    events = Simulator(seed, options).match("m1")
    violations, validator, finished = run(encode_events(events))
    assert violations == []
    assert validator.summary.events == len(events)
    assert validator.summary.valid_matches == 1


@SETTINGS
@given(seed=seeds, players=player_counts)
def test_recomputed_scores_equal_the_simulators(seed, players):
    events = Simulator(seed, SimulationOptions(players=players, bots=("greedy", "random"))).match("m1")
    _, _, finished = run(encode_events(events))
    (table,) = finished
    claimed = events[-1]
    assert isinstance(claimed, MatchEnd)
    assert dict(zip(table.match.names, table.match.scores)) == claimed.scores
    round_ends = [event for event in events if isinstance(event, RoundEnd)]
    assert table.match.rounds_started == len(round_ends)


@settings(max_examples=15, deadline=None)
@given(seed=seeds, tables=st.integers(min_value=2, max_value=5))
def test_interleaved_tables_validate_clean(seed, tables):
    simulator = Simulator(seed, SimulationOptions(players="mixed", bots=("random", "greedy"), log_seq=True))
    matches = list(simulator.matches(tables))
    merged = interleave(matches, random.Random(seed))
    violations, validator, _ = run(encode_events(merged))
    assert violations == []
    assert validator.summary.valid_matches == tables


@SETTINGS
@given(seed=seeds, players=player_counts, bots=bot_lineups, log_seq=st.booleans())
def test_every_injected_fault_is_the_first_violation_on_its_line(seed, players, bots, log_seq):
    simulator = Simulator(seed, SimulationOptions(players=players, bots=bots, fault_rate=1.0, log_seq=log_seq))
    events = simulator.match("m1")
    violations, _, _ = run(encode_events(events))
    if not simulator.injected:
        assert violations == []
        return
    (fault,) = simulator.injected
    assert violations, f"injected {fault} was not caught"
    assert (violations[0].line, violations[0].code) == (fault.index, fault.code)


@settings(max_examples=20, deadline=None)
@given(seed=seeds, players=player_counts)
def test_events_in_memory_replay_like_their_log(seed, players):
    events = Simulator(seed, SimulationOptions(players=players, bots=("tactician", "random"))).match("m1")
    validator = Validator()
    assert list(validator.validate_events(events)) == []
    assert validator.summary.valid_matches == 1


@settings(max_examples=25, deadline=None)
@given(seed=seeds, players=st.sampled_from([2, 3, 4]))
def test_replay_fast_paths_agree_with_the_checks(seed, players):
    """try_draw / try_play / try_pass report exactly what check_* finds, for every action in reach."""
    from drawlog.engine.tiles import TILES

    simulator = Simulator(seed, SimulationOptions(players=players, bots=("random",)))
    events = simulator.match("m1")
    validator = Validator()
    states: list = []
    validator.replay.observer = _StateRecorder(states)
    list(validator.validate_events(events))
    assert states, "no round was replayed"
    rng = random.Random(seed)
    for state in rng.sample(states, min(len(states), 12)):
        for seat in range(len(state.names)):
            for halves in rng.sample(TILES, 6):
                for end in (None, "left", "right"):
                    trial = state.copy()
                    assert trial.try_play(seat, halves, end) == state.check_play(seat, halves, end)[0]
                trial = state.copy()
                assert trial.try_draw(seat, halves) == state.check_draw(seat, halves)[0]
            trial = state.copy()
            assert trial.try_pass(seat) == state.check_pass(seat)


class _StateRecorder(Observer):
    """A replay observer keeping a copy of the round after every move."""

    def __init__(self, states: list) -> None:
        self.states = states

    def round_started(self, table, event, line) -> None:  # noqa: ANN001
        self.states.append(table.round.copy())

    def moved(self, table, state, seat, event, line, could_play, faults) -> None:  # noqa: ANN001
        self.states.append(state.copy())
