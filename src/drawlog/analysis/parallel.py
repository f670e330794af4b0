"""``analyze --jobs N`` and ``--cluster``: matches weighed by worker processes, reported as one process reports them.

Every decision's random numbers come from the seed, the match, the round and
the ply (:func:`~drawlog.analysis.decisions.decision_seed`), never from what
else was analysed, so a match weighed anywhere gives the same figures.
:func:`analyze_in_parallel` therefore splits the work **by match**: each input
is scanned for its matches (:func:`plan_parts`), cut into groups of
consecutive matches of about equal weight, ``PARTS_PER_WORKER`` per worker,
and each group is analysed by a worker (:func:`analyze_part`: the file
validated once, its events replayed for those matches only). The parent puts
the results back in the order one process gives them (each match where its
replay ended, the unfinished ones at the input's end in start order), so the
tables are the same, row for row.

The workers hand back each :class:`~drawlog.analysis.walk.MatchAnalysis`
whole (pickled), whatever fields it has. Standard input, which only one
process can read, is analysed in this process; so is a run with ``jobs`` 1.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

import msgspec

from ..check.pool import is_standard_input, worker_pool
from ..check.walkthrough import numbered_blocks
from ..errors import InputError
from ..log.reader import expand_paths
from ..log.sources import Source
from .walk import MatchAnalysis, WalkOptions, analyze_paths, walk_source

#: How many groups of matches each worker gets, about: enough to even out their weights.
PARTS_PER_WORKER: Final = 4

#: Where a match's analysis comes in one process's order within its input: ``(0, line)`` when its replay ended
#: at that line, ``(1, line)`` for a match still open at the input's end (``line``: its start).
OrderKey = tuple[int, int]


class _Head(msgspec.Struct):
    """The two fields of a log line the plan needs."""

    type: str = ""
    match: str = ""


_HEAD = msgspec.json.Decoder(_Head)


@dataclass(frozen=True)
class AnalysisPart:
    """A worker's task: the matches ``matches`` of input ``index`` (None: all of them, or ``only``)."""

    index: int
    source: Source
    matches: tuple[str, ...] | None
    samples: int
    seed: int
    only: str | None = None


@dataclass
class PartAnalysis:
    """What a worker found: each analysis with its place in the input's order, and the input's error if any."""

    analyses: list[tuple[OrderKey, MatchAnalysis]]
    error: InputError | None = None


def analyze_part(part: AnalysisPart) -> PartAnalysis:
    """Analyse the matches of ``part`` as :func:`~drawlog.analysis.walk.analyze_source` does, noting each one's place
    (:func:`~drawlog.analysis.walk.walk_source`, the same walk)."""
    found: list[tuple[OrderKey, MatchAnalysis]] = []
    wanted = None if part.matches is None else frozenset(part.matches)
    try:
        found.extend(walk_source(part.source, WalkOptions(part.samples, part.seed), part.only, wanted))
    except InputError as error:
        return PartAnalysis(found, error)
    return PartAnalysis(found)


def match_weights(source: Source, only: str | None = None) -> list[tuple[str, int]]:
    """Each match started in ``source`` (``only``: that one) with its number of lines, in start order."""
    weights: dict[str, int] = {}
    for _, block, count in numbered_blocks(source):
        for raw in block.split(b"\n")[:count]:
            try:
                head = _HEAD.decode(raw)
            except (msgspec.DecodeError, msgspec.ValidationError):
                continue
            if head.type == "match_start" and head.match not in weights and (only is None or head.match == only):
                weights[head.match] = 0
            if head.match in weights:
                weights[head.match] += 1
    return list(weights.items())


def plan_parts(inputs: Sequence[Source | InputError], jobs: int, samples: int, seed: int,
               only: str | None = None) -> list[AnalysisPart]:
    """The inputs' matches cut into groups of consecutive matches, about ``PARTS_PER_WORKER`` groups a worker.

    An input that cannot be scanned is one part, whole (its worker meets the
    same error where one process would); an input without a match is no part.
    """
    scanned: list[tuple[int, Source, list[tuple[str, int]] | None]] = []
    for index, item in enumerate(inputs):
        if isinstance(item, InputError):
            continue
        try:
            scanned.append((index, item, match_weights(item, only)))
        except InputError:
            scanned.append((index, item, None))
    total = sum(weight for _, _, matches in scanned if matches for _, weight in matches)
    target = max(1, total // (jobs * PARTS_PER_WORKER))
    parts: list[AnalysisPart] = []
    for index, source, matches in scanned:
        if matches is None:
            parts.append(AnalysisPart(index, source, None, samples, seed, only))
            continue
        group: list[str] = []
        weight = 0
        for match, lines in matches:
            group.append(match)
            weight += lines
            if weight >= target:
                parts.append(AnalysisPart(index, source, tuple(group), samples, seed, only))
                group, weight = [], 0
        if group:
            parts.append(AnalysisPart(index, source, tuple(group), samples, seed, only))
    return parts


def join_parts(inputs: Sequence[Source | InputError], parts: Sequence[AnalysisPart],
               results: Iterable[PartAnalysis]) -> Iterator[MatchAnalysis | InputError]:
    """The analyses (and unreadable inputs) in the order one process gives them, from parts in input order."""
    results = iter(results)
    following = 0
    for index, item in enumerate(inputs):
        if isinstance(item, InputError):
            yield item
            continue
        found: list[tuple[OrderKey, MatchAnalysis]] = []
        error: InputError | None = None
        while following < len(parts) and parts[following].index == index:
            result = next(results)
            following += 1
            found.extend(result.analyses)
            error = error or result.error
        found.sort(key=lambda each: each[0])
        if error is not None:  # the read stopped there: what one process had yielded before it, then the error
            yield from (analysis for key, analysis in found if key[0] == 0 and key[1] < _line_of(error))
            yield error
        else:
            yield from (analysis for _, analysis in found)


def _line_of(error: InputError) -> int:
    return error.line if error.line is not None else 1 << 62


def analyze_in_parallel(paths: Iterable[str], samples: int, seed: int, only: str | None = None, jobs: int = 1,
                        cluster: Any = None) -> Iterator[MatchAnalysis | InputError]:
    """What :func:`~drawlog.analysis.walk.analyze_paths` yields, in its order, worked out by ``jobs`` processes.

    ``cluster``, a ``distributed.Client`` (:func:`drawlog.tables.cluster.connect`
    makes one of ``"local:N"`` or ``"tcp://HOST:8786"``): by its workers instead.
    """
    paths = list(paths)
    inputs = list(expand_paths(paths))
    if (jobs <= 1 and cluster is None) or any(is_standard_input(item) for item in inputs):
        yield from analyze_paths(paths, samples, seed, only)
        return
    parts = plan_parts(inputs, jobs, samples, seed, only)
    if cluster is not None:
        yield from join_parts(inputs, parts, _on_cluster(cluster, parts))
    elif len(parts) <= 1:
        yield from join_parts(inputs, parts, map(analyze_part, parts))
    else:  # more processes than parts or cores gain nothing
        with worker_pool(min(jobs, len(parts), os.cpu_count() or 1)) as pool:
            yield from join_parts(inputs, parts, pool.in_order(analyze_part, parts))


def _on_cluster(client: Any, parts: list[AnalysisPart]) -> Iterator[PartAnalysis]:
    """Each part's result in order, analysed by the workers of ``client``; leaving early cancels what is left."""
    futures = [client.submit(analyze_part, part, pure=False) for part in parts]
    try:
        for future in futures:
            yield future.result()
            future.release()
    finally:
        client.cancel(futures)


__all__ = ["AnalysisPart", "PartAnalysis", "analyze_in_parallel", "analyze_part", "join_parts", "match_weights",
           "plan_parts"]
