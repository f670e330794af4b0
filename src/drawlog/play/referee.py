"""A bot program as the referee holds it: a child process spoken to in JSON lines, with time limits.

:class:`BotProcess` starts the bot's command in a process group of its own,
standard error appended to a file, and talks to it without threads: writes
and reads are non-blocking, waited on with :mod:`selectors` up to a deadline.
Anything the bot does wrong becomes a :class:`BotFailure` with the reason a
forfeit gives (``timeout``, ``crash``, ``protocol``). :meth:`BotProcess.stop`
ends it: standard input closed, then SIGTERM to the group, then SIGKILL, and the
child is always reaped (no zombie is left).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from .protocol import (
    MAX_LINE,
    PROTOCOL_VERSION,
    FromBot,
    Hello,
    ProtocolError,
    Ready,
    decode,
    encode,
)

#: Seconds a bot has to answer ``hello`` (starting an interpreter takes a while).
STARTUP_SECONDS = 10.0
#: Seconds between SIGTERM and SIGKILL, and to wait for a bot to exit once its input is closed.
GRACE_SECONDS = 0.5


class BotFailure(Exception):
    """A bot broke the protocol: ``reason`` is the forfeit's (``timeout``, ``crash``, ``protocol``)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class BotProcess:
    """One running bot program: send it messages, read its answers within a time limit."""

    def __init__(self, name: str, command: Sequence[str], stderr_path: Path, cwd: str | None = None) -> None:
        self.name = name
        self.command = list(command)
        self.stderr_path = stderr_path
        self.cwd = cwd
        self.process: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._eof = False
        self._selector: selectors.BaseSelector | None = None
        #: Seconds spent waiting for the bot's output (its thinking, as the referee sees it).
        self.waited = 0.0

    @property
    def running(self) -> bool:
        """Whether the process was started, not stopped, and has not exited on its own."""
        return self.process is not None and self.process.poll() is None

    def start(self, hello: Hello, startup: float = STARTUP_SECONDS) -> Ready:
        """Start the program and greet it; its ``ready``, or :class:`BotFailure`."""
        self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.stderr_path, "ab") as errors:
            try:
                self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                stderr=errors, cwd=self.cwd, start_new_session=True, bufsize=0)
            except OSError as error:
                raise BotFailure("crash", f"cannot start {' '.join(self.command)}: {error.strerror}") from None
        assert self.process.stdin is not None and self.process.stdout is not None
        os.set_blocking(self.process.stdin.fileno(), False)
        os.set_blocking(self.process.stdout.fileno(), False)
        self._buffer, self._eof = b"", False
        self._selector = selectors.DefaultSelector()
        self.send(encode(hello), startup)
        answer = self.receive(startup, "hello")
        if not isinstance(answer, Ready):
            raise BotFailure("protocol", f"answered hello with {type(answer).__name__}, not ready")
        if hello.protocol != PROTOCOL_VERSION:  # pragma: no cover - one version so far
            raise BotFailure("protocol", "unknown protocol version")
        return answer

    # -- writing ---------------------------------------------------------------

    def send(self, data: bytes, seconds: float) -> None:
        """Write ``data`` (whole lines) within ``seconds``; a bot that stopped reading times out."""
        process = self.process
        assert process is not None and process.stdin is not None and self._selector is not None
        fd = process.stdin.fileno()
        deadline = time.monotonic() + seconds
        view = memoryview(data)
        while view:
            try:
                written = os.write(fd, view)
            except BlockingIOError:
                written = 0
            except (BrokenPipeError, ConnectionResetError):
                raise self._gone("closed its input") from None
            view = view[written:]
            if view:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise BotFailure("timeout", f"did not read its input within {seconds:g} s")
                self._selector.register(fd, selectors.EVENT_WRITE)
                try:
                    self._selector.select(left)
                finally:
                    self._selector.unregister(fd)

    # -- reading ---------------------------------------------------------------

    def _fill(self, timeout: float | None) -> bool:
        """Read what the bot wrote, waiting up to ``timeout`` (None: not at all); whether anything came."""
        process = self.process
        assert process is not None and process.stdout is not None and self._selector is not None
        fd = process.stdout.fileno()
        if timeout is not None:
            self._selector.register(fd, selectors.EVENT_READ)
            began = time.perf_counter()
            try:
                if not self._selector.select(max(timeout, 0.0)):
                    return False
            finally:
                self._selector.unregister(fd)
                self.waited += time.perf_counter() - began
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return False
        if not chunk:
            self._eof = True
            return False
        self._buffer += chunk
        return True

    def _line(self) -> bytes | None:
        """The next complete line of the buffer, or None; a line longer than :data:`MAX_LINE` is a protocol error."""
        end = self._buffer.find(b"\n")
        if end < 0:
            if len(self._buffer) > MAX_LINE:
                raise BotFailure("protocol", f"wrote a line longer than {MAX_LINE:,} bytes")
            return None
        if end > MAX_LINE:
            raise BotFailure("protocol", f"wrote a line longer than {MAX_LINE:,} bytes")
        line, self._buffer = self._buffer[:end], self._buffer[end + 1:]
        return line

    def receive(self, seconds: float, what: str = "its turn") -> FromBot:
        """The bot's next message within ``seconds``, decoded; :class:`BotFailure` otherwise."""
        deadline = time.monotonic() + seconds
        while True:
            line = self._line()
            if line is not None:
                if not line.strip():
                    continue
                try:
                    return decode(line)
                except ProtocolError as error:
                    raise BotFailure("protocol", f"wrote {error}") from None
            if self._eof:
                closed = "closed its output" if what == "its turn" else f"closed its output before answering {what}"
                raise self._gone(closed)
            left = deadline - time.monotonic()
            if left <= 0:
                raise BotFailure("timeout", f"did not answer {what} within {seconds * 1000:g} ms")
            self._fill(left)

    def unasked(self) -> bool:
        """Whether the bot wrote a line nobody asked for (read without waiting)."""
        if self.process is None:
            return False
        while self._fill(None):
            pass
        return bool(self._buffer.strip())

    def _gone(self, what: str) -> BotFailure:
        """The failure of a bot whose pipe closed: ``crash`` if it exited (or exits soon), else ``protocol``."""
        process = self.process
        assert process is not None
        try:
            status = process.wait(GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            return BotFailure("protocol", f"{what} while still running")
        how = f"exit status {status}" if status >= 0 else f"signal {signal.Signals(-status).name}"
        return BotFailure("crash", f"{what}: the program ended ({how})")

    # -- stopping --------------------------------------------------------------

    def stop(self, polite: bool = True) -> None:
        """End the program (``polite``: close its input and give it a moment first) and reap it."""
        process, self.process = self.process, None
        if self._selector is not None:
            self._selector.close()
            self._selector = None
        if process is None:
            return
        with contextlib.suppress(OSError):
            process.stdin.close()  # type: ignore[union-attr]
        if polite:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(GRACE_SECONDS)
        for sent in (signal.SIGTERM, signal.SIGKILL):
            if process.poll() is not None:
                break
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sent)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(GRACE_SECONDS)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # what it left behind in its group
        process.wait()
        with contextlib.suppress(OSError):
            process.stdout.close()  # type: ignore[union-attr]
