"""Crashes at start: exits before answering hello."""
import sys

sys.exit(3)
