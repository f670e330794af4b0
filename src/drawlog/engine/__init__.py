"""The rules engine: tiles, the line, a round's actions, deals and claims, scoring. No I/O."""
