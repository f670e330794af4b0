"""``python -m drawlog``: the command line, the same as the ``drawlog`` script."""

from .cli import main

if __name__ == "__main__":
    main()
