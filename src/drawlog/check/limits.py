"""The default limits of a replay and its report (``--max-per-line``, ``--max-per-match``,
``--max-open-matches``): plain numbers, in a module of their own that the command line reads without
importing the replay.
"""

from __future__ import annotations

from typing import Final

#: The most violations reported for one line by default (``--max-per-line``); the rest are counted.
MAX_PER_LINE: Final = 100
#: The most violations reported for one match by default (``--max-per-match``); the rest are counted.
MAX_PER_MATCH: Final = 1_000
#: The most matches kept open at once by default (``--max-open-matches``): far more than any tournament plays at once.
MAX_OPEN_MATCHES: Final = 50_000
