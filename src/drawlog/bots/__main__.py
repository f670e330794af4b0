"""``python -m drawlog.bots NAME [SEED]``: a built-in bot speaking the bot protocol on standard input and output."""

import sys

from ..play.bot_program import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
