"""The analysis's defaults, in a module of their own that the command line reads without importing the engine."""

from __future__ import annotations

from typing import Final

#: Deals sampled per decision by default: a 2-player Draw match of the samples analysed in about a second.
DEFAULT_SAMPLES: Final = 64
