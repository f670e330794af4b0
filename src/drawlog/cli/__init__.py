"""The ``drawlog`` command line: a thin Typer layer over the library, a module per group of commands.

``app`` is the Typer application. Its commands are registered by their modules
(``validate``, ``logs``, ``replay``, ``play``, ``tables``, ``report``, ``analyze``, ``fix``) when
first needed: building the whole command line (``--help``, a test's
``CliRunner``) imports them all, in the order ``--help`` lists them, while
:func:`main` imports only the module of the command run (start-up time).
"""

from .app import app, main

__all__ = ["app", "main"]
