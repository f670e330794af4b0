"""The formats that editors and CI services read: concise lines, SARIF 2.1.0, JUnit XML, GitLab code quality.

* ``concise``: ``path:line: CODE message``, one line per violation, as ruff
  and flake8 print them (no column: a log's violations belong to a line).
* ``sarif``: one SARIF 2.1.0 log (GitHub code scanning, and most viewers):
  the rule catalog as ``tool.driver.rules``, a result per violation. Results
  are written as found, so memory stays bounded.
* ``junit``: JUnit XML (Jenkins, GitLab and Azure test reports): one
  ``<testsuite>``, a ``<testcase>`` per violation (``FILE:LINE: CODE``), one
  ``<failure>`` in each error's, and a passing one per file without any. A
  warning's test case passes, the warning in its ``<system-out>``, or fails
  (``<failure type="warning">``) with ``--strict``.
  Its counts come first, so the test cases wait in a spool (memory, then a
  temporary file).
* ``gitlab``: GitLab's code quality report, a JSON list of issues whose
  ``fingerprint`` hashes file, line, code and message, so that the same fault
  keeps its identity from run to run. Errors are ``major``, warnings ``minor``.

Text that a terminal or an XML parser would act on (control characters) is
escaped in concise and junit output (:func:`~drawlog.views.terminal.shown`);
JSON keeps the exact strings.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote
from xml.sax.saxutils import escape, quoteattr

import msgspec
from rich.console import Console
from rich.text import Text

from .. import __version__
from ..check.rules import RULES, WARNING, Rule
from ..check.violations import Summary, Violation
from ..log.reader import LongLine
from ..log.sources import Source
from .line_order import LineOrder
from .plain_table import styled
from .terminal import RICH, STYLED, make_console, shown, write_drawn, writing_mode
from .writer_base import Writer, code_style, verdict

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
TOOL_NAME = "drawlog"

_encoder = msgspec.json.Encoder()


def _where(violation: Violation) -> str:
    """The message with the match it is about: ``match m1: …``."""
    text = f"match {violation.match}: {violation.message}" if violation.match else violation.message
    return text if violation.follows is None else text + violation.follows_text()


class ConciseWriter(Writer):
    """``path:line: CODE message``, one line per violation in ``file:line`` order (ruff's and flake8's form), then
    the verdict.

    Each input's violations are written when it ends, sorted by line (a late
    ``F006``, on a match's last line, takes its place); see
    :class:`~drawlog.views.line_order.LineOrder`. A violation of a match says
    which (``match m1: …``); one without a line (an unreadable file) is
    ``path: CODE message``, first. ``quiet`` leaves out the verdict line.
    """

    def __init__(self, stream: IO[str], console: Console | None = None, quiet: bool = False) -> None:
        super().__init__(stream)
        self.console = console or make_console(stream)
        self.quiet = quiet
        self._mode = writing_mode(self.console)
        self._terminal = self.console.is_terminal
        self._order = LineOrder()
        #: ``--show-source``: the inputs by name, whose lines are read again to show under their violations.
        self.sources: dict[str, Source] | None = None

    def add(self, violation: Violation) -> None:
        self._order.add(violation)

    def end_file(self) -> None:
        drained = list(self._order.drain())
        if self.sources is None:
            for violation in drained:
                self._write(violation)
            return
        from ..log.excerpt import lines_at
        from .source_view import source_lines

        width = self.console.width if self._terminal else None
        by_file: dict[str, dict[int, bytes | LongLine]] = {}
        for violation in drained:
            if violation.file not in by_file:
                source = self.sources.get(violation.file)
                wanted = {v.line for v in drained if v.file == violation.file and v.line is not None}
                by_file[violation.file] = lines_at(source, wanted) if source is not None else {}
            self._write(violation)
            raw = by_file[violation.file].get(violation.line) if violation.line is not None else None
            lines = source_lines(violation, raw, width)
            if lines:
                write_drawn(self.console, "\n".join(lines) + "\n", self._terminal)

    def _write(self, violation: Violation) -> None:
        if self._mode != RICH:  # the same characters, without rich's rendering
            write_drawn(self.console, self._line(violation, self._mode == STYLED), self._terminal)
            return
        line = Text(end="")
        line.append(shown(violation.file), style="bold")
        if violation.line is not None:
            line.append(":", style="cyan")
            line.append(str(violation.line))
        line.append(": ", style="cyan")
        line.append(violation.code, style="bold yellow" if violation.severity == WARNING else "bold red")
        line.append(" " + shown(_where(violation)))
        self.console.print(line, soft_wrap=True)

    @staticmethod
    def _line(violation: Violation, color: bool) -> str:
        """The line rich prints for ``violation``, written without it (its ANSI styles when ``color``)."""
        bold, cyan = ("1", "36") if color else ("", "")
        at = styled(shown(violation.file), bold)
        if violation.line is not None:
            at += styled(":", cyan) + str(violation.line)
        code = styled(violation.code, code_style(violation) if color else "")
        return f"{at}{styled(': ', cyan)}{code} {shown(_where(violation))}\n"

    def finish(self, summary: Summary) -> None:
        self.end_file()  # (violations found after the last input ended)
        if not self.quiet:
            self.console.print(verdict(summary, self.note), soft_wrap=True)


# -- SARIF ----------------------------------------------------------------------------


def sarif_rule(rule: Rule) -> dict[str, Any]:
    """A catalog entry as a SARIF ``reportingDescriptor``: id, name, descriptions, help, default level."""
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": f"{rule.summary} {rule.why}"},
        "help": {
            "text": f"{rule.summary}\n\nWhy: {rule.why}\n\nBad:  {rule.bad}\nGood: {rule.good}",
            "markdown": f"{rule.summary}\n\n**Why.** {rule.why}\n\nBad:\n\n```json\n{rule.bad}\n```\n\n"
                        f"Good:\n\n```json\n{rule.good}\n```",
        },
        "defaultConfiguration": {"level": rule.severity, "enabled": not rule.retired},
        "properties": {"tags": [rule.severity], "retired": rule.retired},
    }


def artifact_uri(file: str) -> str:
    """A file's name as a SARIF URI: an absolute path as a ``file://`` URI, a relative one percent-encoded."""
    path = Path(file)
    if path.is_absolute():
        return path.as_uri()
    return quote(path.as_posix() if file not in ("", "-") else file)


#: The name of drawlog's partial fingerprint in SARIF results (versioned: a new way of computing it is a new name).
FINGERPRINT_KEY = "drawlogViolation/v1"
_LINE_NUMBERS = re.compile(r"(\blines \d[\d,]* and |\blines? |\bfirst at \S+:)\d[\d,]*")


def _cited_line(found: re.Match[str]) -> str:
    return re.sub(r"\d[\d,]*", "#", found.group(0))


def sarif_fingerprint(violation: Violation) -> str:
    """What identifies a violation whatever line it is on: the SHA-256 (hex, 32 digits) of its file, code, match,
    round, player and message, with the line numbers a message cites (``line 19``, ``lines 4 and 5``,
    ``first at FILE:12``) left out.

    The SARIF writer adds ``:N`` for the N-th violation with the same key in a run, as GitHub's own
    ``primaryLocationLineHash`` does.
    """
    message = _LINE_NUMBERS.sub(_cited_line, violation.message)
    key = "\0".join((violation.file, violation.code, violation.match or "", str(violation.round or ""),
                     violation.player or "", message))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class SarifWriter(Writer):
    """One SARIF 2.1.0 log with one run: the catalog as the driver's rules, a result per violation, written as found.

    A result's ``properties`` hold the match, round and player; the run's
    ``properties.summary`` holds the counts of :class:`Summary`. Its
    ``partialFingerprints`` (:func:`sarif_fingerprint`) let code scanning follow
    a violation from one run to the next when lines are added above it.
    """

    def __init__(self, stream: IO[str]) -> None:
        super().__init__(stream)
        self._rule_index = {rule.code: index for index, rule in enumerate(RULES)}
        self._results = 0
        self._seen: dict[int, int] = {}

    def _begin(self) -> None:
        driver = {"name": TOOL_NAME, "version": __version__, "semanticVersion": __version__,
                  "rules": [sarif_rule(rule) for rule in RULES]}
        head = _encoder.encode({"$schema": SARIF_SCHEMA, "version": SARIF_VERSION}).decode()
        tool = _encoder.encode({"driver": driver}).decode()
        self.stream.write(f'{head[:-1]},"runs":[{{"tool":{tool},"results":[\n')

    def add(self, violation: Violation) -> None:
        if self._results == 0:
            self._begin()
        else:
            self.stream.write(",\n")
        self._results += 1
        location: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(violation.file)}}
        if violation.line is not None:
            location["region"] = {"startLine": violation.line}
        result: dict[str, Any] = {
            "ruleId": violation.code,
            "ruleIndex": self._rule_index[violation.code],
            "level": violation.severity,
            "message": {"text": _where(violation)},
            "locations": [{"physicalLocation": location}],
            "partialFingerprints": {FINGERPRINT_KEY: self._fingerprint(violation)},
            "properties": {"match": violation.match, "round": violation.round, "player": violation.player,
                           "follows": violation.follows},
        }
        if violation.follows is not None:  # the root it follows from, in the same artifact
            result["relatedLocations"] = [{"id": 1, "message": {"text": "the root violation this one follows from"},
                                           "physicalLocation": {"artifactLocation": location["artifactLocation"],
                                                                "region": {"startLine": violation.follows}}}]
        self.stream.write(_encoder.encode(result).decode())

    def start_file(self, file: str) -> None:
        self._seen.clear()  # (a key holds the file: the same one never comes from another)

    def _fingerprint(self, violation: Violation) -> str:
        key = sarif_fingerprint(violation)
        short = int(key[:16], 16)  # (what the count is kept by: 8 bytes, not the key's 32 characters)
        count = self._seen[short] = self._seen.get(short, 0) + 1
        return f"{key}:{count}"

    def finish(self, summary: Summary) -> None:
        if self._results == 0:
            self._begin()
        invocation = {"executionSuccessful": True}
        tail = _encoder.encode({"invocations": [invocation], "properties": {"summary": summary}}).decode()
        self.stream.write(f"\n],{tail[1:]}]}}\n")


# -- JUnit ------------------------------------------------------------------------------


class JunitWriter(Writer):
    """JUnit XML: one ``<testsuite>``, a ``<testcase>`` per violation (a ``<failure>`` for an error), and one for
    each file without any, which passes.

    A test case is named as concise output places its violation (``FILE:LINE: CODE``) and carries ``file`` and
    ``line``: JUnit readers show one failure per test case, so each error is one. A warning's test case passes,
    the warning in its ``<system-out>``; with ``strict`` (``--strict``: warnings fail the run) it is a failure of
    type ``warning``. The suite's counts come first in the document but are known only at the end, so test
    cases are written as found into a spool (in memory, on disk past :data:`SPOOL_BYTES`) that is copied out
    after them: memory stays bounded.
    """

    def __init__(self, stream: IO[str], strict: bool = False) -> None:
        super().__init__(stream)
        self.strict = strict
        self._cases = _spool()
        self._file: str | None = None
        self._cases_here = 0
        self._tests = 0
        self._failed = 0

    def start_file(self, file: str) -> None:
        if file != self._file:
            self._end_file()
            self._file = file

    def add(self, violation: Violation) -> None:
        if violation.file != self._file:
            self._end_file()
            self._file = violation.file
        self._cases_here += 1
        self._tests += 1
        place = f"{violation.file}:{violation.line}" if violation.line is not None else violation.file
        line = f" line=\"{violation.line}\"" if violation.line is not None else ""
        self._cases.write(f'    <testcase classname="{TOOL_NAME}" name={quoteattr(shown(f"{place}: {violation.code}"))} '
                          f'file={quoteattr(shown(violation.file))}{line}>\n')
        located = escape(shown(_located(violation)))
        if violation.severity == WARNING and not self.strict:
            self._cases.write(f"      <system-out>{located}</system-out>\n")
        else:
            message = quoteattr(shown(f"{violation.code} {_where(violation)}"))
            self._cases.write(f'      <failure type={quoteattr(violation.severity)} message={message}>{located}'
                              f'</failure>\n')
            self._failed += 1
        self._cases.write("    </testcase>\n")

    def end_file(self) -> None:
        self._end_file()

    def _end_file(self) -> None:
        """A file without any violation is one test case, which passes."""
        if self._file is not None and self._cases_here == 0:
            name = quoteattr(shown(self._file))
            self._cases.write(f'    <testcase classname="{TOOL_NAME}" name={name} file={name} />\n')
            self._tests += 1
        self._file, self._cases_here = None, 0

    def finish(self, summary: Summary) -> None:
        self._end_file()
        counts = (f'tests="{self._tests}" failures="{self._failed}" errors="0" skipped="0"')
        write = self.stream.write
        write('<?xml version="1.0" encoding="UTF-8"?>\n')
        write(f'<testsuites name="{TOOL_NAME}" {counts}>\n')
        write(f'  <testsuite name="{TOOL_NAME} validate" {counts}>\n    <properties>\n')
        for key, value in msgspec.structs.asdict(summary).items():
            write(f"      <property name={quoteattr(key)} value={quoteattr(shown(str(value)))} />\n")
        write("    </properties>\n")
        self._cases.seek(0)
        shutil.copyfileobj(self._cases, self.stream)
        write("  </testsuite>\n</testsuites>\n")
        self._cases.close()


#: How much of a JUnit report is held in memory before it is spooled to a temporary file.
SPOOL_BYTES = 1 << 20


def _spool() -> IO[str]:
    """A text buffer in memory that moves to a temporary file once it holds :data:`SPOOL_BYTES`."""
    return tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES, mode="w+", encoding="utf-8",
                                         errors="surrogatepass")  # type: ignore[return-value]


def _located(violation: Violation) -> str:
    """``path:line: CODE message`` with the round and player where known."""
    at = f"{violation.file}:{violation.line}" if violation.line is not None else violation.file
    extra = [f"round {violation.round}" if violation.round is not None else "",
             f"player {violation.player}" if violation.player is not None else ""]
    more = ", ".join(part for part in extra if part)
    return f"{at}: {violation.code} {_where(violation)}" + (f" ({more})" if more else "")


# -- GitLab code quality --------------------------------------------------------------


def fingerprint(violation: Violation) -> str:
    """A stable identity of a violation for GitLab: the SHA-256 of its file, line, code and message (hex)."""
    key = "\0".join((violation.file, str(violation.line or 0), violation.code, violation.message))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


class GitlabWriter(Writer):
    """GitLab's code quality report: a JSON list of issues, written as found.

    ``lines.begin`` is 1 for a violation without a line (an unreadable file):
    GitLab requires a line.
    """

    def __init__(self, stream: IO[str]) -> None:
        super().__init__(stream)
        self._issues = 0

    def add(self, violation: Violation) -> None:
        issue = {
            "description": f"{violation.code} {_where(violation)}",
            "check_name": violation.code,
            "fingerprint": fingerprint(violation),
            "severity": "minor" if violation.severity == WARNING else "major",
            "location": {"path": violation.file, "lines": {"begin": violation.line or 1}},
        }
        self.stream.write("[\n" if self._issues == 0 else ",\n")
        self._issues += 1
        self.stream.write(_encoder.encode(issue).decode())

    def finish(self, summary: Summary) -> None:
        self.stream.write("[]\n" if self._issues == 0 else "\n]\n")
