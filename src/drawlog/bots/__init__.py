"""The built-in bots as programs speaking the drawlog bot protocol: ``python -m drawlog.bots greedy``."""
