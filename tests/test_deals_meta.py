"""Tables that keep everything: ``matches.meta`` whole and its typed columns, the ``deals`` table, the shuffle
checks of ``rounds`` (uniform p-values on fair deals, a biased dealer found), and one layout for every writer."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import polars as pl
import pytest

from drawlog.engine.tiles import TILES, tile_id
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events
from drawlog.tables.dataset import open_tables, write_tables
from drawlog.tables.shuffle import NULL_DEALS, check_deal, p_value

TABLES = ("matches", "rounds", "players", "moves", "violations", "deals")


def match_lines(match_id: str, seed: int = 1, meta: dict | None = None, players: int = 2) -> list[bytes]:
    lines = encode_events(Simulator(seed, SimulationOptions(players=players)).match(match_id))
    if meta is not None:
        first = json.loads(lines[0])
        first["meta"] = meta
        lines[0] = json.dumps(first).encode() + b"\n"
    return lines


def write(tmp_path: Path, lines: list[bytes], name: str = "log.jsonl", **options: object) -> dict[str, pl.DataFrame]:
    log = tmp_path / name
    log.write_bytes(b"".join(lines))
    out = tmp_path / f"stats-{name}"
    write_tables([log], out, **options)  # type: ignore[arg-type]
    return {table: frame.collect() for table, frame in open_tables(out).items()}


# -- meta ------------------------------------------------------------------------------------------------------


def test_meta_is_kept_whole_and_its_common_keys_get_columns(tmp_path: Path):
    meta = {"tournament": "cup", "table": 7, "bots": [{"name": "greedy", "version": "1.2"}, "random"],
            "extra": {"nested": [1, 2, None]}, "ünï": "ok"}
    lines = match_lines("a", meta=meta) + match_lines("b", seed=2, meta={"bots": {"p2": "tactician"},
                                                                         "bot_versions": {"p2": 3}})
    lines += match_lines("c", seed=3)
    matches = write(tmp_path, lines)["matches"].sort("match")
    first, second, third = matches.to_dicts()
    assert json.loads(first["meta"]) == meta
    assert (first["tournament"], first["table_name"]) == ("cup", "7")
    assert first["bots"] == ["greedy", "random"] and first["bot_versions"] == ["1.2", None]
    assert json.loads(second["meta"]) == {"bots": {"p2": "tactician"}, "bot_versions": {"p2": 3}}
    assert second["bots"] == [None, "tactician"] and second["bot_versions"] == [None, "3"]
    assert third["meta"] == '{"bots":["random","random"]}' and third["bots"] == ["random", "random"]
    assert third["bot_versions"] is None


def test_no_meta_leaves_the_meta_columns_null(tmp_path: Path):
    lines = match_lines("a")
    first = json.loads(lines[0])
    del first["meta"]
    lines[0] = json.dumps(first).encode() + b"\n"
    row = write(tmp_path, lines)["matches"].row(0, named=True)
    assert (row["meta"], row["bots"], row["bot_versions"]) == (None, None, None)


# -- deals -----------------------------------------------------------------------------------------------------


def _logged_deals(lines: list[bytes]) -> list[dict]:
    return [event for event in map(json.loads, lines) if event["type"] == "round_start"]


def test_deals_hold_each_hand_and_the_stock_in_draw_order(tmp_path: Path):
    lines = match_lines("a", players=3)
    tables = write(tmp_path, lines)
    deals = tables["deals"]
    logged = _logged_deals(lines)
    assert deals.height == len(logged) * 4  # three hands and the stock
    for event in logged:
        rows = deals.filter(pl.col("round") == event["round"]).sort("seat", nulls_last=True).to_dicts()
        hands = [row for row in rows if row["part"] == "hand"]
        assert [row["player"] for row in hands] == ["p1", "p2", "p3"] and [row["seat"] for row in hands] == [0, 1, 2]
        for row in hands:
            assert row["tiles"] == [sorted(tile) for tile in event["hands"][row["player"]]]
            assert row["doubles"] == sum(low == high for low, high in event["hands"][row["player"]])
        stock = [row for row in rows if row["part"] == "stock"]
        assert len(stock) == 1 and stock[0]["player"] is None and stock[0]["seat"] is None
        assert stock[0]["tiles"] == [sorted(tile) for tile in event["stock"]], "the stock in draw order"
        assert {row["line"] for row in rows} == {lines.index(json.dumps(event, separators=(",", ":")).encode() + b"\n")
                                                 + 1} or len({row["line"] for row in rows}) == 1
    rounds = tables["rounds"].sort("round")
    per_round = deals.filter(pl.col("part") == "hand").group_by("round").agg(pl.col("doubles").sum()).sort("round")
    assert rounds["shuffle_doubles"].to_list() == per_round["doubles"].to_list()
    assert set(rounds["shuffle_doubles_expected"].to_list()) == {21 * 7 / 28}
    for column in ("shuffle_doubles_p", "shuffle_suits_p"):
        assert all(0 < value < 1 for value in rounds[column].to_list()), column
    assert (rounds["shuffle_suits_chi2"] >= 0).all()


def test_a_deal_that_is_not_a_deal_has_no_shuffle_check_but_its_hands(tmp_path: Path):
    lines = match_lines("a")
    index = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "round_start")
    event = json.loads(lines[index])
    event["hands"]["p2"][0] = event["hands"]["p1"][0]  # a tile dealt twice
    lines[index] = json.dumps(event).encode() + b"\n"
    tables = write(tmp_path, lines)
    first = tables["rounds"].filter(pl.col("round") == 1).row(0, named=True)
    assert [first[name] for name in ("shuffle_doubles", "shuffle_doubles_p", "shuffle_suits_p")] == [None] * 3
    assert tables["deals"].filter((pl.col("round") == 1) & (pl.col("part") == "hand")).height == 2


# -- the shuffle checks ----------------------------------------------------------------------------------------


def _ks(values: list[float]) -> float:
    """The Kolmogorov–Smirnov distance of ``values`` from the uniform distribution on [0, 1]."""
    ordered = sorted(values)
    n = len(ordered)
    return max(max((i + 1) / n - value, value - i / n) for i, value in enumerate(ordered))


def _deal(rng: random.Random, sizes: tuple[int, ...], doubles_to_first: float = 0.0,
          clustered: float = 0.0) -> list[list[int]]:
    tiles = list(range(28))
    rng.shuffle(tiles)
    if clustered and rng.random() < clustered:  # a dealer who leaves runs of a suit together
        start = rng.randrange(18)
        tiles[start:start + 10] = sorted(tiles[start:start + 10], key=lambda tile: TILES[tile])
    hands, start = [], 0
    for size in sizes:
        hands.append(tiles[start:start + size])
        start += size
    if doubles_to_first:  # a dealer who slips doubles to the first hand
        rest = tiles[start:] + [tile for hand in hands[1:] for tile in hand]
        for position, tile in enumerate(hands[0]):
            if TILES[tile][0] != TILES[tile][1] and rng.random() < doubles_to_first:
                double = next((other for other in rest if TILES[other][0] == TILES[other][1]), None)
                if double is None:
                    break
                rest.remove(double)
                for hand in hands[1:]:
                    if double in hand:
                        hand[hand.index(double)] = tile
                hands[0][position] = double
    return hands


@pytest.mark.parametrize("sizes", [(7, 7), (7, 7, 7), (5, 5, 5, 5)])
def test_p_values_of_fair_deals_are_uniform(sizes: tuple[int, ...]):
    rng = random.Random(2024)
    checks = [check_deal(_deal(rng, sizes), f"m{index}", 1) for index in range(1500)]
    critical = 1.63 / math.sqrt(len(checks))  # Kolmogorov–Smirnov at 1 %
    for name in ("doubles_p", "suits_p"):
        values = [getattr(check, name) for check in checks]
        assert all(0 < value < 1 for value in values)
        assert _ks(values) < critical, (name, _ks(values))
    assert sum(check.doubles for check in checks) / len(checks) == pytest.approx(sum(sizes) * 7 / 28, rel=0.05)


def test_a_dealer_slipping_doubles_to_one_hand_is_found():
    rng = random.Random(7)
    checks = [check_deal(_deal(rng, (7, 7), doubles_to_first=0.25), f"m{index}", 1) for index in range(400)]
    values = [check.doubles_p for check in checks]
    assert _ks(values) > 3 * 1.63 / math.sqrt(len(values))
    assert sum(value < 0.05 for value in values) > 0.3 * len(values)


def test_a_dealer_keeping_suits_together_is_found():
    rng = random.Random(8)
    checks = [check_deal(_deal(rng, (7, 7, 7), clustered=0.8), f"m{index}", 1) for index in range(600)]
    values = [check.suits_p for check in checks]
    assert _ks(values) > 2 * 1.63 / math.sqrt(len(values))  # twice what a fair dealer reaches once in 100


def test_p_values_are_the_same_on_every_run_and_break_ties_by_match_and_round():
    hands = [[tile_id((0, 0)), tile_id((1, 1)), tile_id((2, 3))], [tile_id((4, 5)), tile_id((6, 6)), tile_id((0, 1))]]
    first = check_deal(hands, "m1", 1)
    assert check_deal(hands, "m1", 1).doubles_p == first.doubles_p
    assert check_deal(hands, "m1", 2).doubles_p != first.doubles_p, "a tie broken by another number"
    assert first.per_hand == [2, 1] and first.doubles == 3 and first.expected == 6 * 7 / 28
    null = [1.0, 2.0, 2.0, 3.0]
    assert p_value(2.0, null, 0.0) == 1 / 5 and p_value(2.0, null, 0.5) == (1 + 1.5) / 5
    assert p_value(9.0, null, 0.0) == 0.0 and p_value(0.0, null, 0.999) == pytest.approx(4.999 / 5)
    assert NULL_DEALS == 4000


# -- one layout ------------------------------------------------------------------------------------------------


def test_every_writer_gives_one_layout_read_by_scanning_the_table_folder(tmp_path: Path):
    logs = tmp_path / "logs"
    logs.mkdir()
    for index in range(3):
        (logs / f"{index}.jsonl").write_bytes(b"".join(match_lines(f"m{index}", seed=index,
                                                                   meta={"tournament": f"t{index % 2}"})))
    runs = {"one": {}, "jobs": {"jobs": 2}, "parted": {"partition_by": "tournament"}}
    read: dict[str, dict[str, pl.DataFrame]] = {}
    for name, options in runs.items():
        out = tmp_path / name
        write_tables([logs], out, **options)  # type: ignore[arg-type]
        assert sorted(entry.name for entry in out.iterdir() if entry.is_dir() and not entry.name.startswith(".")) \
            == sorted(TABLES)  # (and the generation folders, .gen-N: see tests/test_generations.py)
        read[name] = {table: pl.scan_parquet(out / table).collect() for table in TABLES}  # the documented way
    for table in TABLES:
        key = [column for column in ("match", "round", "ply", "part", "player", "line", "code")
               if column in read["one"][table].columns]
        one = read["one"][table].sort(key, nulls_last=True)
        assert one.height > 0 or table == "violations"
        assert one.equals(read["jobs"][table].sort(key, nulls_last=True)), table
        assert one.equals(read["parted"][table].select(one.columns).sort(key, nulls_last=True)), table


def test_a_cluster_writes_the_same_layout_and_a_local_run_takes_it_over(tmp_path: Path):
    distributed = pytest.importorskip("distributed")
    import drawlog

    logs = tmp_path / "logs"
    logs.mkdir()
    for index in range(3):
        (logs / f"{index}.jsonl").write_bytes(b"".join(match_lines(f"m{index}", seed=index)))
    local, remote = tmp_path / "local", tmp_path / "cluster"
    write_tables([logs], local)
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None,
                                       scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})  # (not port 8787)
    try:
        with distributed.Client(cluster) as client:
            drawlog.write_stats([str(logs)], remote, cluster=client)
    finally:
        cluster.close()
    for table in TABLES:
        assert pl.scan_parquet(remote / table).collect().equals(pl.scan_parquet(local / table).collect()), table
    write_tables([logs], remote)  # no index there: everything replayed, the same rows
    assert json.loads((remote / "_drawlog.json").read_text())["incremental"]["why_all"] == "no index of earlier inputs"
    for table in TABLES:
        assert pl.scan_parquet(remote / table).collect().equals(pl.scan_parquet(local / table).collect()), table
