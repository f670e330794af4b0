"""The ``drawlog`` command line: a thin Typer layer over the library, a module per group of commands.

``app`` is the Typer application; importing this package registers every command on it, in the
order ``--help`` lists them.
"""

# isort: off
from .app import app, main
from . import validate, logs, play, tables, report, analyze, fix  # noqa: F401  (they register their commands on app)
# isort: on

__all__ = ["app", "main"]
