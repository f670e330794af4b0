"""Validation: the rule catalog, the replay of matches through the engine, violations."""
