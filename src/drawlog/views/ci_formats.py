"""The formats that editors and CI services read: concise lines, SARIF 2.1.0, JUnit XML, GitLab code quality.

* ``concise``: ``path:line: CODE message``, one line per violation, as ruff
  and flake8 print them (no column: a log's violations belong to a line).
* ``sarif``: one SARIF 2.1.0 log (GitHub code scanning, and most viewers):
  the rule catalog as ``tool.driver.rules``, a result per violation. Results
  are written as found, so memory stays bounded.
* ``junit``: JUnit XML (Jenkins, GitLab and Azure test reports): one
  ``<testsuite>``, a ``<testcase>`` per input file, a ``<failure>`` per error.
  A warning is a line of the test case's ``<system-out>`` (it does not fail the
  run), or a ``<failure type="warning">`` with ``--strict`` (where it does).
* ``gitlab``: GitLab's code quality report, a JSON list of issues whose
  ``fingerprint`` hashes file, line, code and message, so that the same fault
  keeps its identity from run to run. Errors are ``major``, warnings ``minor``.

Text that a terminal or an XML parser would act on (control characters) is
escaped in concise and junit output (:func:`~drawlog.views.writers.shown`);
JSON keeps the exact strings.
"""

from __future__ import annotations

import hashlib
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

import msgspec
from rich.console import Console
from rich.text import Text

from .. import __version__
from ..check.rules import RULES, WARNING, Rule
from ..check.violations import Summary, Violation
from .writers import Writer, make_console, shown, verdict

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
TOOL_NAME = "drawlog"

_encoder = msgspec.json.Encoder()


def _where(violation: Violation) -> str:
    """The message with the match it is about: ``match m1: …``."""
    return f"match {violation.match}: {violation.message}" if violation.match else violation.message


class ConciseWriter(Writer):
    """``path:line: CODE message``, one line per violation as found (ruff's and flake8's form), then the verdict.

    A violation of a match says which (``match m1: …``); one without a line
    (an unreadable file) is ``path: CODE message``. ``quiet`` leaves out the
    verdict line.
    """

    def __init__(self, stream: IO[str], console: Console | None = None, quiet: bool = False) -> None:
        super().__init__(stream)
        self.console = console or make_console(stream)
        self.quiet = quiet

    def add(self, violation: Violation) -> None:
        line = Text(end="")
        line.append(shown(violation.file), style="bold")
        if violation.line is not None:
            line.append(":", style="cyan")
            line.append(str(violation.line))
        line.append(": ", style="cyan")
        line.append(violation.code, style="bold yellow" if violation.severity == WARNING else "bold red")
        line.append(" " + shown(_where(violation)))
        self.console.print(line, soft_wrap=True)

    def finish(self, summary: Summary) -> None:
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


class SarifWriter(Writer):
    """One SARIF 2.1.0 log with one run: the catalog as the driver's rules, a result per violation, written as found.

    A result's ``properties`` hold the match, round and player; the run's
    ``properties.summary`` holds the counts of :class:`Summary`.
    """

    def __init__(self, stream: IO[str]) -> None:
        super().__init__(stream)
        self._rule_index = {rule.code: index for index, rule in enumerate(RULES)}
        self._results = 0

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
        result = {
            "ruleId": violation.code,
            "ruleIndex": self._rule_index[violation.code],
            "level": violation.severity,
            "message": {"text": _where(violation)},
            "locations": [{"physicalLocation": location}],
            "properties": {"match": violation.match, "round": violation.round, "player": violation.player},
        }
        self.stream.write(_encoder.encode(result).decode())

    def finish(self, summary: Summary) -> None:
        if self._results == 0:
            self._begin()
        invocation = {"executionSuccessful": True}
        tail = _encoder.encode({"invocations": [invocation], "properties": {"summary": summary}}).decode()
        self.stream.write(f"\n],{tail[1:]}]}}\n")


# -- JUnit ------------------------------------------------------------------------------


class JunitWriter(Writer):
    """JUnit XML: one ``<testsuite>``, a ``<testcase>`` per input file, a ``<failure>`` per error.

    Warnings are lines of the test case's ``<system-out>``, or failures of type
    ``warning`` when ``strict`` (``--strict``: warnings fail the run). The
    document is written at the end (its counts come first).
    """

    def __init__(self, stream: IO[str], strict: bool = False) -> None:
        super().__init__(stream)
        self.strict = strict
        self.cases: dict[str, tuple[list[Violation], list[str]]] = {}

    def start_file(self, file: str) -> None:
        self.cases.setdefault(file, ([], []))

    def add(self, violation: Violation) -> None:
        failures, output = self.cases.setdefault(violation.file, ([], []))
        if violation.severity == WARNING and not self.strict:
            output.append(_located(violation))
        else:
            failures.append(violation)

    def finish(self, summary: Summary) -> None:
        failures = sum(bool(found) for found, _ in self.cases.values())
        attributes = {"name": TOOL_NAME, "tests": str(len(self.cases)), "failures": str(failures),
                      "errors": "0", "skipped": "0"}
        root = ET.Element("testsuites", attributes)
        suite = ET.SubElement(root, "testsuite", {**attributes, "name": f"{TOOL_NAME} validate"})
        properties = ET.SubElement(suite, "properties")
        for key, value in msgspec.structs.asdict(summary).items():
            ET.SubElement(properties, "property", {"name": key, "value": str(value)})
        for file, (found, output) in self.cases.items():
            case = ET.SubElement(suite, "testcase", {"classname": TOOL_NAME, "name": shown(file),
                                                    "file": shown(file)})
            for violation in found:
                failure = ET.SubElement(case, "failure", {
                    "type": violation.severity, "message": shown(f"{violation.code} {_where(violation)}")})
                failure.text = shown(_located(violation))
            if output:
                ET.SubElement(case, "system-out").text = "\n".join(shown(line) for line in output)
        ET.indent(root)
        self.stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        self.stream.write(ET.tostring(root, encoding="unicode"))
        self.stream.write("\n")


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
