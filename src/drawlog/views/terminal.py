"""Text on a terminal (or a file, or a pipe): consoles, and strings from logs shown safely.

:func:`shown` escapes the control characters of any string that comes from a
log, a path or a table, so a log cannot write escape sequences to the terminal;
:func:`literal` makes it a rich ``Text`` printed as it is, never as markup.
:func:`make_console` opens a console as ``--color`` says, and
:func:`writing_mode` tells whether drawlog may write to it without rich: plain
text, or text with the ANSI styles rich would write.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:  # imported where used, not to list the commands (start-up time)
    from rich.console import Console, ConsoleOptions
    from rich.segment import Segment
    from rich.text import Text

#: The width of text written to a file or pipe: no terminal to fit, so rows are not folded to 80 columns.
UNBOUNDED_WIDTH = 1000


def make_console(stream: IO[str], color: str = "auto") -> Console:
    """A console on ``stream``: the terminal's width on a terminal, else wide enough that rows stay whole.

    ``color`` is ``--color``: ``auto`` colours a terminal (``NO_COLOR`` and
    ``FORCE_COLOR`` have their say), ``always`` colours a file or pipe too,
    ``never`` writes no escape sequence at all.
    """
    from rich.console import Console

    if color == "never":
        console = Console(file=stream, highlight=False, emoji=False, color_system=None)
    else:
        console = Console(file=stream, highlight=False, emoji=False, force_terminal=color == "always" or None)
    if not console.is_terminal or not _is_terminal(stream):
        console.width = UNBOUNDED_WIDTH
    return console


#: What drawlog may write to a console itself, sparing rich's rendering (about a millisecond a table row,
#: 0.25 ms a line): nothing (``RICH``), plain text (``PLAIN``) or text with ANSI styles (``STYLED``).
RICH, PLAIN, STYLED = "rich", "plain", "styled"


def writing_mode(console: Console) -> str:
    """How text may be written to ``console``: :data:`PLAIN` when nothing is coloured, :data:`STYLED` when
    colours go to a terminal of the standard, 256 or true colours, else :data:`RICH` (only rich can: box
    drawing not encodable, ``NO_COLOR`` taking colours but not bold, a legacy Windows console, a notebook).
    """
    if console.options.ascii_only or console.legacy_windows or console.is_jupyter:
        return RICH
    if console.color_system is None:
        return PLAIN
    if console.color_system in ("standard", "256", "truecolor") and not console.no_color:
        return STYLED
    return RICH


class Drawn:
    """Text drawn without rich (plain, or with its ANSI styles) for rich to print as it is."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        """The text as one segment, written unchanged."""
        from rich.segment import Segment

        yield Segment(self.text)


def write_drawn(console: Console, text: str, through_rich: bool) -> None:
    """Write ``text``, drawn without rich, to ``console``: straight to its file, or ``through_rich`` (a terminal).

    On a terminal, rich prints it (about 35 µs a call), so a live display on the
    same console, the progress bar, stays below it.
    """
    if through_rich:
        console.print(Drawn(text), crop=False, end="")
    else:
        console.file.write(text)


def plain_console(console: Console) -> bool:
    """Whether what ``console`` prints is plain text, as is: nothing to colour, box drawing encodable."""
    return writing_mode(console) == PLAIN


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def literal(text: str, style: str = "") -> Text:
    """``text`` as a table cell printed as it is: no markup, no emoji codes, control characters escaped."""
    from rich.text import Text

    return Text(shown(text), style=style, end="")


#: What a terminal would act on rather than show: C0 and C1 controls, DEL, bidirectional and line-separator marks.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
_NAMED_CONTROLS = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_control(found: re.Match[str]) -> str:
    character = found.group()
    code = ord(character)
    return _NAMED_CONTROLS.get(character) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def shown(text: str) -> str:
    """``text`` from a log, a path or a table as text output prints it: control characters escaped.

    ESC becomes ``\\x1b``, a newline ``\\n``, a tab ``\\t``, a right-to-left override
    ``\\u202e``; everything else is kept. The result holds no control character,
    so escaping twice changes nothing.
    """
    return text if _CONTROL.search(text) is None else _CONTROL.sub(_escape_control, text)
