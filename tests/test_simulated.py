"""Property tests: simulated matches validate clean; every injected fault is caught where it was put."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drawlog.check.replay import Observer
from drawlog.check.validator import Validator
from drawlog.log.events import MatchEnd, Play, RoundEnd, RoundStart
from drawlog.play import simulate as simulate_module
from drawlog.play.faults import FIVES_KINDS
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
    assert_fault_caught_first(Simulator(seed, SimulationOptions(players=players, bots=bots, fault_rate=1.0,
                                                                log_seq=log_seq)))


def assert_fault_caught_first(simulator: Simulator, kinds: tuple[str, ...] | None = None) -> None:
    """Play one match with a fault due: the fault (of ``kinds``) is the first violation, on its line."""
    violations, _, _ = run(encode_events(simulator.match("m1")))
    if not simulator.injected:
        assert violations == []
        return
    (fault,) = simulator.injected
    assert kinds is None or fault.code in kinds
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


# -- All Fives -----------------------------------------------------------------

fives_tables = st.sampled_from([2, 3, 4]).flatmap(
    lambda players: st.tuples(st.just(players), st.sampled_from(
        [None, {"hand": 5}] + ([{"hand": 7}] if players == 2 else []))))
FIVES_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FIVES_SETTINGS
@given(seed=seeds, table=fives_tables, bots=bot_lineups, log_stock=st.booleans(), log_seq=st.booleans(),
       omit_end=st.booleans())
def test_every_simulated_all_fives_match_validates_clean(seed, table, bots, log_stock, log_seq, omit_end):
    players, rules = table
    options = SimulationOptions(players=players, bots=bots, variant="all-fives", rules=rules, log_stock=log_stock,
                                log_seq=log_seq, reveal_hands=True, omit_optional_end=omit_end)
    events = Simulator(seed, options).match("m1")
    violations, validator, finished = run(encode_events(events))
    start = events[0]
    house = rules is not None and not (players == 4 and rules["hand"] == 5)  # 5 each is standard with 4
    assert (start.variant, start.rules is not None) == ("all-fives", house)
    assert [(v.line, v.code) for v in violations] == ([(1, "W402")] if house else [])
    assert validator.summary.valid_matches == 1
    (table_state,) = finished
    assert table_state.match.result.decided
    assert dict(zip(table_state.match.names, table_state.match.scores)) == events[-1].scores
    plays = [event for event in events if isinstance(event, Play)]
    assert plays and all(event.points is not None and event.points % 5 == 0 for event in plays)
    # v1.2: the match ends at the play that reaches the target, with round_end "target" and no end points
    last_round, match_end = events[-2], events[-1]
    assert isinstance(last_round, RoundEnd) and isinstance(match_end, MatchEnd)
    assert (last_round.reason, last_round.winner) == ("target", match_end.winner)
    assert set(last_round.points.values()) == {0}
    assert isinstance(events[-3], Play) and events[-3].player == match_end.winner and events[-3].points > 0
    target = table_state.match.target
    assert match_end.scores[match_end.winner] >= target
    assert all(score < target for name, score in match_end.scores.items() if name != match_end.winner)
    assert all(event.reason != "target" for event in events[:-2] if isinstance(event, RoundEnd))


@FIVES_SETTINGS
@given(seed=seeds, players=st.sampled_from([2, 3, 4]), bots=bot_lineups, log_seq=st.booleans())
def test_every_all_fives_fault_is_the_first_violation_on_its_line(seed, players, bots, log_seq):
    assert_fault_caught_first(Simulator(seed, SimulationOptions(players=players, bots=bots, variant="all-fives",
                                                                fault_rate=1.0, log_seq=log_seq)), FIVES_KINDS)


def test_every_all_fives_fault_kind_is_injected_and_caught_first():
    seen = set()
    for seed in range(150):
        simulator = Simulator(seed, SimulationOptions(players=(2, 3, 4)[seed % 3], bots=("random", "greedy"),
                                                      variant="all-fives", fault_rate=1.0, log_seq=seed % 2 == 0))
        events = simulator.match("m1")
        violations, _, _ = run(encode_events(events))
        for fault in simulator.injected:
            assert (violations[0].line, violations[0].code) == (fault.index, fault.code)
            seen.add(fault.code)
        if seen == set(FIVES_KINDS):
            break
    assert seen == set(FIVES_KINDS)


def test_an_injected_m212_is_applied_when_it_matches_and_the_rest_of_the_match_validates():
    """v1.2: an early arm play that matches the spinner is applied by the replay, and by the simulator: the
    match then goes on clean (one violation); a tile that does not match is not applied, and no more."""
    seen = set()
    for seed in range(200):
        simulator = Simulator(seed, SimulationOptions(players=(2, 3, 4)[seed % 3], bots=("random", "greedy"),
                                                      variant="all-fives", fault_rate=1.0))
        simulator.faults.kinds = ("M212",)
        events = simulator.match("m1")
        violations, validator, _ = run(encode_events(events))
        (fault,) = simulator.injected
        assert [(v.line, v.code) for v in violations] == [(fault.index, "M212")]
        assert validator.summary.complete_matches == 1
        applied = events[fault.index - 1].points is not None
        assert applied == ("placed there early" in violations[0].message)
        seen.add(applied)
        if seen == {True, False}:
            break
    assert seen == {True, False}


def test_all_fives_openers_follow_the_player_who_went_out():
    events = Simulator(11, SimulationOptions(players=3, bots=("greedy",), variant="all-fives")).match("m1")
    starts = [event for event in events if isinstance(event, RoundStart)]
    ends = [event for event in events if isinstance(event, RoundEnd)]
    assert len(starts) == len(ends) > 2
    for previous, start in zip(ends, starts[1:]):
        if previous.reason == "domino":
            assert start.opener == previous.winner
        else:
            assert previous.winner is None


@settings(max_examples=15, deadline=None)
@given(seed=seeds, players=st.sampled_from([2, 3, 4]))
def test_all_fives_replay_fast_paths_agree_with_the_checks(seed, players):
    """FivesRound's try_draw / try_play / try_pass report exactly what its check_* finds, up and down included."""
    from drawlog.engine.tiles import TILES

    simulator = Simulator(seed, SimulationOptions(players=players, bots=("greedy", "random"), variant="all-fives"))
    validator = Validator()
    states: list = []
    validator.replay.observer = _StateRecorder(states)
    list(validator.validate_events(simulator.match("m1")))
    rng = random.Random(seed)
    for state in rng.sample(states, min(len(states), 10)):
        for seat in range(len(state.names)):
            for halves in rng.sample(TILES, 5):
                for end in (None, "left", "right", "up", "down"):
                    trial = state.copy()
                    assert trial.try_play(seat, halves, end) == state.check_play(seat, halves, end)[0]
                trial = state.copy()
                assert trial.try_draw(seat, halves) == state.check_draw(seat, halves)[0]
            trial = state.copy()
            assert trial.try_pass(seat) == state.check_pass(seat)


@settings(max_examples=15, deadline=None)
@given(seed=seeds, players=st.sampled_from([2, 3, 4, "mixed"]), hand=st.integers(min_value=1, max_value=6),
       reserve=st.integers(min_value=0, max_value=4))
def test_draw_house_rules_validate_with_their_one_warning(seed, players, hand, reserve):
    options = SimulationOptions(players=players, bots=("greedy", "random"), rules={"hand": hand, "reserve": reserve})
    events = Simulator(seed, options).match("m1")
    violations, validator, _ = run(encode_events(events))
    assert {(v.line, v.code) for v in violations} <= {(1, "W402")}
    assert validator.summary.valid_matches == 1
    start = events[0]
    assert start.variant == "draw" and "variant" not in encode_events(events)[0].decode()
    assert (start.rules is None) == (not violations)


@pytest.mark.parametrize(("variant", "rules", "players"), [
    ("all-fives", {"reserve": 1}, 2), ("draw", {"hand": 0}, 2), ("draw", {"hand": 7}, 4),
    ("all-fives", {"hand": 8}, "mixed"), ("draw", {"size": 3}, 2), ("cutthroat", None, 2),
])
def test_rules_that_cannot_be_played_are_refused(variant, rules, players):
    with pytest.raises(ValueError):
        Simulator(0, SimulationOptions(players=players, variant=variant, rules=rules))


def test_a_match_undecided_after_max_rounds_is_dealt_again(monkeypatch):
    monkeypatch.setattr(simulate_module, "MAX_ROUNDS", 15)
    simulator = Simulator(3, SimulationOptions(players=4, bots=("greedy",), variant="all-fives", fault_rate=1.0,
                                               log_seq=True))
    matches = list(simulator.matches(8))
    assert simulator.abandoned > 0
    for events in matches:
        violations, validator, _ = run(encode_events(events))
        faults = [fault for fault in simulator.injected if fault.match == events[0].match]
        assert [(v.line, v.code) for v in violations[:1]] == [(fault.index, fault.code) for fault in faults]
        assert validator.summary.complete_matches == 1


def test_matches_that_never_reach_the_target_are_refused():
    simulator = Simulator(0, SimulationOptions(players=3, variant="all-fives", rules={"hand": 2}))
    with pytest.raises(simulate_module.EndlessMatches, match="reach no target"):
        simulator.match("m1")
