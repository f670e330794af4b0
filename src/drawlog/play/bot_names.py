"""The names of the built-in bots, in a module of their own that the command line reads without importing the
engine (:data:`~drawlog.play.bots.BOTS` holds the same names; tests/test_startup.py checks it)."""

from __future__ import annotations

BOT_NAMES = ("random", "greedy", "tactician")
#: The bots built on the analysis (:data:`~drawlog.analysis.bots.ANALYSIS_BOTS`), offered by ``drawlog simulate`` too.
ANALYSIS_BOT_NAMES = ("expert", "peeker")
