"""Configuration files: ``[tool.drawlog]`` in ``pyproject.toml``, or a ``drawlog.toml``.

:func:`find_config` looks from a folder upwards, as ruff does: the first folder
holding a ``drawlog.toml``, or a ``pyproject.toml`` with a ``[tool.drawlog]``
table, gives the settings (``drawlog.toml`` wins in the same folder).
:func:`load_config` reads one file (its ``[tool.drawlog]`` table when it has
one, whatever its name); an unknown key or a value of the wrong type is a
:class:`ConfigError` naming the file, the key's line and the key.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from ..errors import DrawlogError
from .rules import RULES_BY_CODE, select_codes
from .small_files import MAX_FILE_NESTING, TooLarge, megabytes, read_capped, toml_too_deep

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG_NAMES = ("drawlog.toml", "pyproject.toml")
#: The largest configuration file read; a larger one is refused unread.
MAX_CONFIG_BYTES = 1 << 20
#: The values ``format`` takes: ``validate --format``'s.
FORMATS = ("text", "concise", "json", "jsonl", "github", "sarif", "junit", "gitlab")

#: Every key a configuration may hold, and the kind of value it takes.
KEYS = {
    "select": "a list of codes or prefixes",
    "ignore": "a list of codes or prefixes",
    "extend-select": "a list of codes or prefixes",
    "extend-ignore": "a list of codes or prefixes",
    "per-file-ignores": "a table of glob = list of codes",
    "format": f"one of {', '.join(FORMATS)}",
    "max-per-match": "a whole number of 1 or more",
    "max-per-line": "a whole number of 1 or more",
    "jobs": "a whole number of 1 or more",
    "aliases": "a file name (TOML or JSON: canonical name = list of aliases)",
}


class ConfigError(DrawlogError):
    """A configuration file that cannot be read, or a key in it that is unknown or of the wrong type."""


@dataclass
class Settings:
    """What a configuration file sets (``None`` or empty: not set). ``path`` is the file read, if any."""

    path: Path | None = None
    select: list[str] | None = None
    ignore: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    extend_ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    format: str | None = None
    max_per_match: int | None = None
    max_per_line: int | None = None
    jobs: int | None = None
    #: The aliases file of ``players``, ``ratings``, ``h2h``, ``seats`` (relative to this file's folder).
    aliases: str | None = None

    #: Whether the settings are the file's ``[tool.drawlog]`` table (else its top level).
    tool_table: bool = False
    #: The line (from 1) each key of the file is set on, where it could be told.
    lines: dict[str, int] = field(default_factory=dict)

    def where(self, key: str) -> str:
        """``FILE:LINE: key`` (``[tool.drawlog] key`` when the settings are that table), for error messages."""
        if self.path is None:
            return key
        table = "[tool.drawlog] " if self.tool_table else ""
        line = self.lines.get(key)
        return f"{self.path}{f':{line}' if line else ''}: {table}{key}"

    def codes(self, select: list[str] | None, ignore: list[str] | None, extend_select: list[str] | None,
              extend_ignore: list[str] | None) -> frozenset[str]:
        """The codes reported, the command line's options (``None``: not given) over this file's.

        ``--select`` replaces the file's ``select`` and ``extend-select``;
        ``--ignore`` replaces its ``ignore``; ``extend-ignore`` and the other
        ``extend-select`` add up. ``ValueError`` names an unknown code. A
        selection given but empty (``--select ''``, ``select = []``) selects
        nothing, as ruff's does: only the ``extend-select`` codes, if any.
        """
        chosen = select if select is not None else self.select
        extended = [*(self.extend_select if select is None else []), *(extend_select or [])]
        dropped = [*(ignore if ignore is not None else self.ignore or []), *self.extend_ignore, *(extend_ignore or [])]
        if chosen is not None and selects_nothing(chosen):
            return select_codes(extended, dropped) if not selects_nothing(extended) else frozenset()
        return select_codes([*chosen, *extended] if chosen else None, dropped)

    def ignored_in(self, file: str) -> frozenset[str]:
        """The codes ``per-file-ignores`` drops for ``file`` (as violations name it).

        A glob matches the file as given, its path relative to the configuration's
        folder, or (a glob without ``/``) its name.
        """
        if not self.per_file_ignores:
            return frozenset()
        names = {file.replace(os.sep, "/")}
        if self.path is not None:
            try:
                names.add(Path(os.path.relpath(Path(file).resolve(), self.path.parent.resolve())).as_posix())
            except (OSError, ValueError):
                pass
        base = file.replace(os.sep, "/").rsplit("/", 1)[-1]
        dropped: list[str] = []
        for pattern, codes in self.per_file_ignores.items():
            glob = pattern.replace(os.sep, "/").removeprefix("./")
            if any(fnmatchcase(name, glob) for name in names) or ("/" not in glob and fnmatchcase(base, glob)):
                dropped.extend(codes)
        return frozenset(RULES_BY_CODE) - select_codes(None, dropped) if dropped else frozenset()


def selects_nothing(codes: list[str]) -> bool:
    """Whether a list of codes and prefixes (each maybe comma-separated) names none: ``[]``, ``[""]``, ``[" , "]``."""
    return not any(part.strip() for value in codes for part in value.split(","))


def find_config(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The configuration file that applies in ``start`` (the current folder): the nearest upwards, or None."""
    folder = Path(start if start is not None else os.getcwd()).resolve()
    for place in (folder, *folder.parents):
        own = place / "drawlog.toml"
        if own.is_file():
            return own
        project = place / "pyproject.toml"
        if project.is_file() and _has_drawlog_table(project):
            return project
    return None


def _has_drawlog_table(path: Path) -> bool:
    """Whether a pyproject.toml has ``[tool.drawlog]`` (one that cannot be parsed has it if it says so)."""
    try:
        data = read_capped(path, MAX_CONFIG_BYTES)
        text = data.decode("utf-8")
    except TooLarge:
        return True  # load_config says it is too large
    except OSError:
        return False
    except UnicodeDecodeError:
        return b"[tool.drawlog" in data  # not UTF-8: load_config says where, if it is meant for drawlog
    if toml_too_deep(text) is not None:
        return "[tool.drawlog" in text  # load_config says where
    try:
        return isinstance(tomllib.loads(text).get("tool", {}).get("drawlog"), dict)
    except (tomllib.TOMLDecodeError, RecursionError):
        return "[tool.drawlog" in text  # broken: load_config says where


def load_config(path: str | os.PathLike[str]) -> Settings:
    """Read the settings of one file: its ``[tool.drawlog]`` table when it has one (any file; a
    ``pyproject.toml`` without one sets nothing), else the file's top level.

    A file over 1 MiB, or nesting arrays and tables more than 64 deep, is a
    :class:`ConfigError` naming it (and the line), never read further.
    """
    where = Path(path)
    try:
        text = read_capped(where, MAX_CONFIG_BYTES).decode("utf-8")
        deep = toml_too_deep(text)
        if deep is not None:
            raise ConfigError(f"{where}:{deep}: arrays or tables nested more than {MAX_FILE_NESTING} deep")
        document = tomllib.loads(text)
    except TooLarge as error:
        raise ConfigError(f"{where}: larger than {megabytes(error.limit)}: not a configuration file") from None
    except OSError as error:
        raise ConfigError(f"cannot read the configuration {where}: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{where}: not valid TOML: {error}") from None
    except RecursionError:
        raise ConfigError(f"{where}: arrays or tables nested too deep") from None
    tool = document.get("tool")
    in_tool = isinstance(tool, dict) and "drawlog" in tool
    if in_tool or where.name == "pyproject.toml":
        table = tool.get("drawlog", {}) if isinstance(tool, dict) else {}
        if not isinstance(table, dict):
            raise ConfigError(f"{where}:{_line_of(text, 'tool', 'drawlog') or 1}: [tool.drawlog] must be a table")
        if where.name != "pyproject.toml":  # a drawlog.toml or --config FILE: settings in one place only
            for name in document:
                if name != "tool":
                    line = _line_of(text, "", name)
                    raise ConfigError(f"{where}{f':{line}' if line else ''}: {name}: set outside [tool.drawlog], "
                                      f"which this file has: put every setting in [tool.drawlog]")
        return _settings(where, table, True, _key_lines(text, "tool.drawlog", table))
    return _settings(where, document, False, _key_lines(text, "", document))


def _key_lines(text: str, table: str, keys: dict[str, Any]) -> dict[str, int]:
    """The line each of ``keys`` is set on in the TOML ``text``, inside ``table`` (dotted; "" the top level)."""
    found = {}
    for key in keys:
        line = _line_of(text, table, key)
        if line:
            found[key] = line
    globs = keys.get("per-file-ignores")
    if isinstance(globs, dict):
        for glob in globs:
            line = _line_of(text, f"{table}.per-file-ignores".lstrip("."), glob) or found.get("per-file-ignores")
            if line:
                found[f"per-file-ignores {glob!r}"] = line
    return found


_HEADER = re.compile(r"\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$")


def _line_of(text: str, table: str, key: str) -> int | None:
    """The line (from 1) where ``key`` of ``table`` is set: ``key = …`` under ``[table]``, a ``[table.key]``
    header, or a dotted ``key.x = …``; None when it cannot be told (the settings still hold)."""
    current = ""
    names = {key, f'"{key}"', f"'{key}'"}
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header and not line.lstrip().startswith(("#",)) and "=" not in line.split("]")[0]:
            current = ".".join(part.strip().strip("\"'") for part in header.group(1).split("."))
            if current == f"{table}.{key}".lstrip("."):
                return number
            continue
        if current != table or "=" not in line:
            continue
        name = line.split("=", 1)[0].strip()
        if name in names or any(name.startswith(f"{each}.") for each in names):
            return number
    return None


def _settings(path: Path, table: dict[str, Any], tool_table: bool = False,
              lines: dict[str, int] | None = None) -> Settings:
    settings = Settings(path=path, tool_table=tool_table, lines=lines or {})
    for name, value in table.items():
        if name not in KEYS:
            close = [key for key in KEYS if key.replace("-", "_") == name or key.replace("-", "") == name]
            close = close or difflib.get_close_matches(name, KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f" (keys: {', '.join(KEYS)})"
            raise ConfigError(f"{settings.where(name)}: unknown key{hint}")
        if not _fits(name, value):
            raise ConfigError(f"{settings.where(name)}: must be {KEYS[name]}, not {_kind(value)}")
        attribute = name.replace("-", "_")
        setattr(settings, attribute, dict(value) if isinstance(value, dict) else value)
    for name in ("select", "ignore", "extend-select", "extend-ignore"):
        try:
            select_codes(None, getattr(settings, name.replace("-", "_")))
        except ValueError as error:
            raise ConfigError(f"{settings.where(name)}: {error}") from None
    for glob, codes in settings.per_file_ignores.items():
        try:
            select_codes(None, codes)
        except ValueError as error:
            raise ConfigError(f"{settings.where(f'per-file-ignores {glob!r}')}: {error}") from None
    return settings


def _codes_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _fits(name: str, value: object) -> bool:
    if name == "per-file-ignores":
        return isinstance(value, dict) and all(_codes_list(codes) for codes in value.values())
    if name == "format":
        return value in FORMATS
    if name in ("max-per-match", "max-per-line", "jobs"):
        return type(value) is int and value >= 1
    if name == "aliases":
        return isinstance(value, str) and value != ""
    return _codes_list(value)


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int):
        return f"the number {value}"
    if isinstance(value, str):
        return f"a string ({value!r})"
    if isinstance(value, list):
        return "a list holding something else than strings"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


def resolve_settings(config: str | None, isolated: bool) -> Settings:
    """The settings a command runs with: ``--isolated`` none, ``--config FILE`` that file, else the one found."""
    if isolated:
        return Settings()
    if config is not None:
        return load_config(config)
    found = find_config()
    return load_config(found) if found is not None else Settings()
