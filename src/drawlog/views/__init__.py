"""Output for people and tools: violation writers, tables on screen and in files."""
