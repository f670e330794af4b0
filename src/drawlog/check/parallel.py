"""``validate --jobs N``: the inputs replayed in parts by worker processes, reported as one process reports them.

:func:`validate_in_parallel` cuts the inputs into parts
(:func:`~drawlog.check.pool.plan_parts`), has the workers replay them
(:func:`~drawlog.check.parts.validate_part`), and joins them in input order
(:func:`join_parts`, with :class:`~drawlog.check.parts.CrossFile`): the same
violations in the same order, the same summary, as ``--jobs 1``. A cluster's
workers replay parts too, joined the same way (:mod:`drawlog.tables.cluster`).
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator
from itertools import islice
from pathlib import Path

from ..errors import InputError
from ..log.reader import Source
from .parts import (
    CrossFile,
    Part,
    PartFix,
    PartOptions,
    PartResult,
    add_summaries,
    fix_summary,
    fixed_violations,
    read_violations,
    validate_part,
)
from .pool import OnProgress, plan_parts, worker_pool
from .violations import Summary, Violation


def validate_in_parallel(inputs: list[Source | InputError], options: PartOptions, jobs: int, summary: Summary,
                         on_progress: OnProgress | None = None, parts: list[range] | None = None,
                         ) -> Generator[tuple[str, Iterator[Violation]], None, None]:
    """Each input's name and violations, in input order, found by ``jobs`` processes; counts go to ``summary``.

    Read each input's violations before asking for the next input. The
    summary holds an input's counts once its violations are handed out (an
    input's part is counted whole when its first input comes). None of the
    inputs may be standard input. ``parts``: how :func:`plan_parts` cut them, if known.
    """
    parts = parts if parts is not None else plan_parts(inputs, jobs)
    scratch = Path(tempfile.mkdtemp(prefix="drawlog-validate-"))
    try:
        tasks = []
        for number, indices in enumerate(parts):
            folder = scratch / f"part-{number}"
            folder.mkdir()
            tasks.append(Part(list(indices), [inputs[index] for index in indices], str(folder), options))
        with worker_pool(min(jobs, len(tasks)), progress=on_progress is not None) as pool:
            done = _read_back(zip(tasks, pool.in_order(validate_part, tasks, on_progress)))
            yield from join_parts(done, lambda part: (validate_part(part), read_violations(part.folder)), summary)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _read_back(done: Iterable[tuple[Part, PartResult]]) -> Iterator[tuple[Part, PartResult, Iterator[Violation]]]:
    """Each part with its result and the violations it wrote; its folder is removed once the next is asked for."""
    for task, result in done:
        yield task, result, read_violations(task.folder)
        shutil.rmtree(task.folder, ignore_errors=True)


def join_parts(done: Iterable[tuple[Part, PartResult, Iterable[Violation]]],
               again: Callable[[Part], tuple[PartResult, Iterable[Violation]]], summary: Summary,
               ) -> Iterator[tuple[str, Iterator[Violation]]]:
    """Each input's name and violations, from parts replayed apart, as one process reports them; counts go to ``summary``.

    ``done``: each part (in input order), its result and violations, as
    :func:`~drawlog.check.parts.validate_part` gave them, wherever it ran (a
    local worker, a cluster's). ``again`` replays a part (``Part.seen`` set:
    the ids started before) where an F005 would crowd a cap. Read each input's
    violations before asking for the next.
    """
    cross = CrossFile()
    for task, result, found in done:
        fix = cross.fix(result)
        if fix.again:  # an F005 would crowd a cap: replay the part, knowing the ids started before
            result, found = again(dataclasses.replace(task, seen=dict(cross.first)))
            fix = PartFix()
        fix_summary(result.summary, fix)
        add_summaries(summary, result.summary)
        added = Counter(violation.file for _, violation in fix.inserted)
        violations = fixed_violations(found, fix, cross)
        for name, count in result.files:
            mine = islice(violations, count + added[name])
            yield name, mine
            for _ in mine:  # what the caller left unread
                pass
        cross.add(result)
