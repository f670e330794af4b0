"""``python -m drawlog`` and the ``drawlog`` script: the command line, with Ctrl-C during start-up handled.

This module imports nothing heavy itself: a Ctrl-C while the command line is
still being imported (typer, the command's module, the library) ends the run
with one line and exit 130, as a Ctrl-C during a command does, not with a
traceback.
"""

import sys

#: 128 + SIGINT: what a shell reports for a command that Ctrl-C ended.
EXIT_INTERRUPTED = 130


def run() -> None:
    """Entry point of the ``drawlog`` script."""
    try:
        from .cli.app import main

        main()
    except KeyboardInterrupt:
        sys.stderr.write("drawlog: interrupted\n")
        sys.exit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    run()
