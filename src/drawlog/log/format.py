"""The version of the log format this drawlog reads, in a module of its own: ``--version`` prints it without
importing the event types (and msgspec).
"""

from __future__ import annotations

FORMAT_VERSION = 1
#: The minor version of the log format this drawlog reads (``LOG_FORMAT``: "1.2").
FORMAT_MINOR = 2
#: The log format as a string, written into the tables' manifest and printed by ``--version``.
LOG_FORMAT = f"{FORMAT_VERSION}.{FORMAT_MINOR}"
#: What each minor version of the log format changed (the manifest's ``log_format_changes``).
LOG_FORMAT_CHANGES = {
    "1.1": "house rules (match_start.rules), the All Fives variant, a play's claimed points (R308)",
    "1.2": "All Fives: the target is checked after every play and wins at once (round_end reason \"target\"); "
           "an early play on the spinner's arm (M212) is applied when the tile matches; match_end.forfeit; "
           "W405 for a ts that is not RFC 3339",
}
