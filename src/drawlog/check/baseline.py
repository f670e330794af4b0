"""Baselines: the violations an archive is known to hold, so that a run reports only new ones.

A baseline is a JSON file (``drawlog validate LOGS --write-baseline B.json``)::

    {"drawlog_baseline": 1,
     "violations": [{"fingerprint": "9c1d…", "file": "logs/night.jsonl", "code": "M205",
                     "match": "m17", "message": "…", "count": 1}, …]}

A violation's fingerprint is its file (as given on the command line), code,
match and message, not its line: a log that grows keeps its baseline. ``count``
is how many violations share the fingerprint; each entry absorbs that many
(``--baseline B.json``), and the rest are reported.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from ..atomic import atomic_file
from ..errors import DrawlogError
from .small_files import MAX_FILE_NESTING, TooLarge, json_too_deep, megabytes, read_capped
from .violations import Summary, Violation

#: The version of the baseline file format.
BASELINE_VERSION = 1
#: The largest baseline read (about a million distinct violations); a larger one is refused unread.
MAX_BASELINE_BYTES = 256 << 20

Key = tuple[str, str, "str | None", str]


class BaselineError(DrawlogError):
    """A baseline file that cannot be read or does not have the baseline's form."""


def key(violation: Violation) -> Key:
    """What identifies a violation in a baseline: file, code, match, message (not the line)."""
    return (violation.file, violation.code, violation.match, violation.message)


def fingerprint(violation: Violation) -> str:
    """The stable fingerprint of a violation: a SHA-256 (hex, 16 digits) of :func:`key`."""
    return _digest(key(violation))


def _digest(item: Key) -> str:
    return hashlib.sha256(json.dumps(list(item), ensure_ascii=False).encode()).hexdigest()[:16]


class Baseline:
    """The violations of a baseline file, each absorbing as many reports as its ``count``."""

    def __init__(self, counts: Counter[Key] | None = None) -> None:
        self.counts: Counter[Key] = counts if counts is not None else Counter()

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Baseline:
        """Read a baseline file; :class:`BaselineError` names the file and what is wrong."""
        name = os.fspath(path)
        try:
            data = read_capped(name, MAX_BASELINE_BYTES)
            deep = json_too_deep(data)
            if deep is not None:
                raise BaselineError(f"{name}:{deep}: arrays or objects nested more than {MAX_FILE_NESTING} deep: "
                                    f"not a drawlog baseline")
            document = json.loads(data.decode("utf-8"))
        except TooLarge as error:
            raise BaselineError(f"{name}: larger than {megabytes(error.limit)}: not a drawlog baseline") from None
        except OSError as error:
            raise BaselineError(f"cannot read the baseline {name}: {error.strerror or error}") from None
        except (ValueError, UnicodeDecodeError) as error:
            raise BaselineError(f"the baseline {name} is not JSON: {error}") from None
        except RecursionError:
            raise BaselineError(f"{name}: arrays or objects nested too deep: not a drawlog baseline") from None
        entries = document.get("violations") if isinstance(document, dict) else None
        version = document.get("drawlog_baseline") if isinstance(document, dict) else None
        if type(version) is not int or version != BASELINE_VERSION or not isinstance(entries, list):  # not true, 1.0
            raise BaselineError(f"{name} is not a drawlog baseline (version {BASELINE_VERSION}): write one with "
                                f"`drawlog validate LOGS --write-baseline {name}`")
        counts: Counter[Key] = Counter()
        for index, entry in enumerate(entries):
            try:
                item: Key = (entry["file"], entry["code"], entry["match"], entry["message"])
                count = entry.get("count", 1)
                if not all(isinstance(part, str) for part in (item[0], item[1], item[3])) \
                        or not isinstance(item[2], (str, type(None))) or type(count) is not int or count < 1:
                    raise TypeError
            except (KeyError, TypeError, AttributeError):
                raise BaselineError(f"{name}: entry {index + 1} of violations needs file, code, match, message "
                                    f"(strings; match may be null) and a count of 1 or more") from None
            counts[item] += count
        return cls(counts)

    def __len__(self) -> int:
        return sum(self.counts.values())

    def absorbs(self, violation: Violation) -> bool:
        """Whether the baseline holds this violation (each entry absorbs up to its count)."""
        item = key(violation)
        left = self.counts.get(item, 0)
        if left <= 0:
            return False
        self.counts[item] = left - 1
        return True


class Screen:
    """What stands between the validator and the report: per-file ignores, then a baseline.

    ``ignored_in(file)`` gives the codes dropped for a file (``per-file-ignores``);
    ``baseline`` absorbs known violations; with ``record`` every violation that
    passes the per-file ignores is counted for :func:`write_baseline`.
    """

    def __init__(self, ignored_in: Callable[[str], frozenset[str]] | None = None,
                 baseline: Baseline | None = None, record: bool = False) -> None:
        self.ignored_in = ignored_in
        self.baseline = baseline
        self.recorded: Counter[Key] | None = Counter() if record else None
        self._ignored: dict[str, frozenset[str]] = {}

    def __call__(self, violations: Iterable[Violation], summary: Summary) -> Iterator[Violation]:
        """The violations to report, in order; those held back are taken out of ``summary`` (counted, reported)."""
        baseline, recorded = self.baseline, self.recorded
        for violation in violations:
            if self.ignored_in is not None:
                ignored = self._ignored.get(violation.file)
                if ignored is None:
                    ignored = self._ignored[violation.file] = self.ignored_in(violation.file)
                if violation.code in ignored:
                    summary.withdraw(violation)
                    continue
            if recorded is not None:
                recorded[key(violation)] += 1
            if baseline is not None and baseline.absorbs(violation):
                summary.withdraw(violation)
                summary.baselined += 1
                continue
            yield violation


def baseline_document(violations: Iterable[Violation] | Counter[Key]) -> dict[str, object]:
    """The baseline of these violations (or of counts by :func:`key`), as the JSON document to write (sorted)."""
    counts = violations if isinstance(violations, Counter) else Counter(key(violation) for violation in violations)
    entries = [{"fingerprint": _digest(item), "file": item[0], "code": item[1], "match": item[2],
                "message": item[3], "count": count}
               for item, count in sorted(counts.items(), key=lambda pair: (pair[0][0], pair[0][1],
                                                                         pair[0][2] or "", pair[0][3]))]
    return {"drawlog_baseline": BASELINE_VERSION, "violations": entries}


def write_baseline(path: str | os.PathLike[str], violations: Iterable[Violation] | Counter[Key]) -> int:
    """Write the baseline of ``violations`` to ``path``; how many violations it holds."""
    document = baseline_document(violations)
    with atomic_file(path, "w", encoding="utf-8") as handle:  # written whole or not at all
        json.dump(document, handle, ensure_ascii=False, indent=1)
        handle.write("\n")
    return sum(entry["count"] for entry in document["violations"])  # type: ignore[misc,attr-defined]
