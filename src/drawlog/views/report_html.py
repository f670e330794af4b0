"""The report's HTML helpers: escaping for text, attributes and script data, numbers, tables and sections.

Every string that comes from a log (names, ids, messages, paths) goes
through :func:`escape`; text of drawlog's own with backquoted names (a
rule's summary) through :func:`prose`, which also shows `` `name` `` as
``<code>name</code>``; data for the page's script through
:func:`script_json`, so a log cannot end the script element it sits in.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from .terminal import shown as _shown

#: How a column's values are shown.
SHARE, DECIMAL, COUNT, TEXT = "share", "decimal", "count", "text"
_CODE = re.compile(r"`([^`\n]+)`")


def escape(value: Any) -> str:
    """Text for HTML text or a quoted attribute: control characters and bidirectional marks escaped as the
    terminal shows them (``\\u202e``), then HTML-escaped, and ``://`` written ``&#58;//`` (never a link)."""
    text = "" if value is None else _shown(str(value))
    return html.escape(text, quote=True).replace("://", "&#58;//")


def prose(value: Any) -> str:
    """:func:`escape`, and each `` `backquoted` `` part shown as code (``<code>backquoted</code>``)."""
    return _CODE.sub(r"<code>\1</code>", escape(value))


def lines(text: str) -> str:
    """Text of several lines (a rule's examples) for a ``<pre>``: each line escaped as :func:`escape` does."""
    return "\n".join(escape(line) for line in text.split("\n"))


def shown_values(value: Any) -> Any:
    """``value`` (lists and dicts of plain values) with every string as :func:`~drawlog.views.terminal.shown`
    shows it, keys too: what the page's script shows holds no control character or bidirectional mark."""
    if isinstance(value, str):
        return _shown(value)
    if isinstance(value, dict):
        return {shown_values(key): shown_values(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [shown_values(item) for item in value]
    return value


def script_json(value: Any) -> str:
    """JSON to put inside a ``<script>`` element: ``<``, ``>``, ``&``, U+2028 and U+2029 as ``\\u`` escapes,
    ``://`` as ``:\\/\\/``."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").replace("://", ":\\/\\/"))


def is_number(value: Any) -> bool:
    """Whether ``value`` is an int or float (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def number(value: Any, kind: str) -> str:
    """A value of a table as shown: a share as a percentage, a decimal to 2 places, a count with separators."""
    if value is None:
        return "–"
    if not is_number(value):  # (the tables' types are checked; never formatted unescaped all the same)
        return escape(value)
    if kind == SHARE:
        return f"{value:.1%}"
    if kind == DECIMAL:
        return f"{value:,.2f}"
    if kind == COUNT:
        return f"{value:,}"
    return escape(value)


def cells(row: dict[str, Any], columns: tuple[tuple[str, str], ...]) -> str:
    """A row's cells, numbers right-aligned with their value to sort by."""
    out = []
    for name, kind in columns:
        value = row.get(name)
        if kind == TEXT:
            out.append(f"<td>{escape(value)}</td>")
        else:
            sort = "" if value is None else f"{value!r}"
            out.append(f'<td class="num" data-sort="{escape(sort)}">{number(value, kind)}</td>')
    return "".join(out)


def head(columns: tuple[tuple[str, str], ...]) -> str:
    """A table's header cells, the names' underscores as spaces."""
    return "".join(f'<th{"" if kind == TEXT else " class=num"}>{escape(name.replace("_", " "))}</th>'
                   for name, kind in columns)


def table(rows: list[dict[str, Any]], columns: tuple[tuple[str, str], ...], element_id: str) -> str:
    """A sortable table of ``rows``."""
    body = "".join(f"<tr>{cells(row, columns)}</tr>" for row in rows)
    return (f'<div class=wide><table class="sortable" id="{element_id}"><thead><tr>{head(columns)}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


def cut_note(shown: int, total: int, what: str) -> str:
    """The sentence that says a list was cut (nothing when it was not)."""
    if total <= shown:
        return ""
    return f'<p class="note">The first {shown:,} {what} of {total:,} are listed; {total - shown:,} more are not ' \
           f"shown here (all are in the tables: <code>drawlog stats</code>, <code>drawlog query</code>).</p>"


def section(element_id: str, title: str, lead: str, body: str) -> str:
    """A section of the page: its heading, the sentence that says what it shows, its body."""
    return f'<section id="{element_id}"><h2>{escape(title)}</h2><p class="lead">{lead}</p>{body}</section>'
