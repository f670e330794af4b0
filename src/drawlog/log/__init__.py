"""The log format: typed events (the schema's single source) and reading log files."""
