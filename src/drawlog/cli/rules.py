"""``drawlog rule`` and ``schema``: the rules explained, and the JSON Schema of a log line."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from .app import RuleFormat, app

if TYPE_CHECKING:
    from ..check.rules import Rule


def _rule_markdown(rule: Rule) -> str:
    return (
        f"# {rule.code} `{rule.name}` ({rule.severity}{', retired' if rule.retired else ''})\n\n"
        f"**What it checks.** {rule.summary}\n\n"
        f"**Why.** {rule.why}\n\n"
        f"**Bad**\n\n```\n{rule.bad}\n```\n\n"
        f"**Good**\n\n```\n{rule.good}\n```\n"
    )


@app.command()
def rule(
    code: Annotated[Optional[str], typer.Argument(metavar="CODE", help="A code (M205) or name (illegal-draw).")] = None,
    show_all: Annotated[bool, typer.Option("--all", help="Explain every rule.")] = False,
    output_format: Annotated[RuleFormat, typer.Option("--format", help="text (in full), json, or concise (one "
                                                      "line per rule: code, name, severity, what it checks; "
                                                      "every rule when no CODE is given).")] = RuleFormat.text,
) -> None:
    """Explain a rule: its name, severity, what it checks, why, and a bad and a good example.

    `drawlog rule --format concise` lists every rule, one a line.
    """
    import msgspec
    from rich.console import Console

    from ..check.rules import RULES, find_rule

    if show_all and code is not None:
        raise typer.BadParameter(f"give a rule code ({code}) or --all, not both", param_hint="CODE/--all")
    if show_all or (code is None and output_format is RuleFormat.concise):
        chosen = list(RULES)
    elif code is None:
        raise typer.BadParameter("give a rule code (e.g. M205), or --all (--format concise: one line per rule)",
                                 param_hint="CODE")
    else:
        found = find_rule(code)
        if found is None:
            raise typer.BadParameter(f"no rule {code!r}; `drawlog rule --all` lists them", param_hint="CODE")
        chosen = [found]
    if output_format is RuleFormat.json:
        typer.echo(msgspec.json.encode(chosen if show_all else chosen[0]).decode())
        return
    if output_format is RuleFormat.concise:
        _rule_lines(chosen)
        return
    from rich.markdown import Markdown

    console = Console(highlight=False)
    for index, item in enumerate(chosen):
        if index:
            console.rule()
        console.print(Markdown(_rule_markdown(item)))


def _rule_lines(chosen: list[Any]) -> None:
    """One line per rule: code, name, severity and what it checks; on a terminal, what it checks is cut to fit."""
    from ..views.terminal import make_console

    console = make_console(sys.stdout)
    width = console.width if console.is_terminal else None
    severities = [f"{item.severity}{', retired' if item.retired else ''}" for item in chosen]
    name_width, severity_width = max(len(item.name) for item in chosen), max(map(len, severities))
    for item, severity in zip(chosen, severities):
        line = f"{item.code}  {item.name:<{name_width}}  {severity:<{severity_width}}  {item.summary}"
        if width is not None and len(line) > width:
            line = line[:max(width - 1, 0)].rstrip() + "…"
        typer.echo(line)


@app.command()
def schema() -> None:
    """Print the JSON Schema of one log line (format v1)."""
    import msgspec

    from ..log.events import json_schema

    typer.echo(msgspec.json.format(msgspec.json.encode(json_schema()), indent=2).decode())
