"""``validate --jobs N``: the inputs replayed in parts by worker processes, reported as one process reports them.

:func:`validate_in_parallel` cuts the inputs into parts
(:func:`~drawlog.check.pool.plan_parts`), has the workers replay them
(:func:`~drawlog.check.parts.validate_part`), and joins them in input order
(:class:`~drawlog.check.parts.CrossFile`): the same violations in the same
order, the same summary, as ``--jobs 1``.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections import Counter
from collections.abc import Generator, Iterator
from itertools import islice
from pathlib import Path

from ..errors import InputError
from ..log.reader import Source
from .parts import (
    CrossFile,
    Part,
    PartFix,
    PartOptions,
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
        cross = CrossFile()
        with worker_pool(min(jobs, len(tasks)), progress=on_progress is not None) as pool:
            for task, result in zip(tasks, pool.in_order(validate_part, tasks, on_progress)):
                fix = cross.fix(result)
                if fix.again:  # an F005 would crowd a cap: replay the part here, knowing the ids started before
                    result = validate_part(dataclasses.replace(task, seen=dict(cross.first)))
                    fix = PartFix()
                fix_summary(result.summary, fix)
                add_summaries(summary, result.summary)
                added = Counter(violation.file for _, violation in fix.inserted)
                violations = fixed_violations(read_violations(task.folder), fix, cross)
                for name, count in result.files:
                    mine = islice(violations, count + added[name])
                    yield name, mine
                    for _ in mine:  # what the caller left unread
                        pass
                cross.add(result)
                shutil.rmtree(task.folder, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
