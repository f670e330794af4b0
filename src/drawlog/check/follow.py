"""``drawlog validate --follow``: one log validated while it is written, each violation as soon as its line is.

The lines come from a :class:`~drawlog.log.tail.Tail` (a file followed by name
as ``tail -F`` does, or standard input) and go through the same
:class:`~drawlog.check.validator.Validator` as every other validation
(:meth:`~drawlog.check.validator.Validator.validate_chunks`): the same rules,
the same violations on the same lines. Each file read under the name is one
input: its lines are numbered from 1, and when it ends (truncated, replaced,
or the end of following) the matches it left open are ``F006`` there, as at the
end of any input; the next file starts with no match open. An ``F006`` is thus
never reported while a file is being followed, only once it is left.

:func:`follow` yields the violations; :func:`run` writes them to an output
writer, flushed whenever the input has nothing new; :func:`interrupt_stops`
makes Ctrl-C end the following (so the summary is written) instead of the run.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import IO, Any, Protocol

from ..log.tail import Tail
from .validator import Validator
from .violations import Summary, Violation


class Output(Protocol):
    """What :func:`run` writes to: a ``drawlog validate`` output writer (text, concise, jsonl, github)."""

    def start_file(self, file: str) -> None:
        """An input named ``file`` begins."""

    def add(self, violation: Violation) -> None:
        """Take one violation."""

    def end_file(self) -> None:
        """Write what is held (called whenever the followed input has nothing new)."""


def follow(validator: Validator, tail: Tail, name: str | None = None) -> Iterator[Violation]:
    """The violations of the log ``tail`` follows, each yielded once its line has been read and replayed.

    ``name`` is the file's name in the violations (the tail's by default).
    Ends when the tail stops following (or standard input ends), once the
    last file's open matches are reported (``F006``).
    """
    file = tail.name if name is None else name
    for chunks in tail.files():
        yield from validator.validate_chunks(chunks, file)


def run(validator: Validator, tail: Tail, output: Output, stream: IO[str] | Any, *,
        screen: Callable[[Iterable[Violation], Summary], Iterable[Violation]] | None = None,
        fail_fast: bool = False) -> Summary:
    """Follow ``tail`` into ``output`` until it stops (or, with ``fail_fast``, the first error); the summary.

    Whenever the input has nothing new, what ``output`` holds is written and
    ``stream`` flushed, so each violation is out within a poll of its line being
    written. ``screen`` (a baseline) filters the violations as in ``validate``.
    """
    def idle() -> None:
        output.end_file()
        stream.flush()

    tail.on_idle = idle
    output.start_file(tail.name)
    found = follow(validator, tail)
    for violation in screen(found, validator.summary) if screen is not None else found:
        output.add(violation)
        if fail_fast and violation.severity == "error":
            break
    getattr(found, "close", lambda: None)()  # a run left early counts the lines it read now
    output.end_file()
    return validator.summary


@contextmanager
def interrupt_stops(stop: threading.Event) -> Iterator[None]:
    """While inside, Ctrl-C (SIGINT) sets ``stop`` instead of interrupting; a second Ctrl-C interrupts.

    Outside the main thread (where signals cannot be caught) it does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)

    def stopping(number: int, frame: Any) -> None:
        stop.set()
        signal.signal(signal.SIGINT, previous)  # the next Ctrl-C interrupts at once

    signal.signal(signal.SIGINT, stopping)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
