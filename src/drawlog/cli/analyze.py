"""``drawlog analyze``: how good each decision was, per player (see :mod:`drawlog.analysis`)."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ..analysis.defaults import DEFAULT_SAMPLES
from ..errors import InputError
from .app import EXIT_UNUSABLE, app

if TYPE_CHECKING:  # imported where used, not to list the commands (start-up time)
    from ..analysis.decisions import Decision
    from ..analysis.summary import PlayerFigures
    from ..analysis.walk import MatchAnalysis

#: The most deals per decision allowed (more would take hours for little gain).
MAX_SAMPLES = 10_000
#: The most matches the text output names as stopped early or unfinished.
MAX_NOTES = 20


class AnalysisFormat(str, Enum):
    """Output formats of ``analyze``."""

    text = "text"
    json = "json"


@app.command()
def analyze(
    paths: Annotated[list[str], typer.Argument(metavar="PATH", help="Log files, folders, or - for standard input.")],
    match: Annotated[Optional[str], typer.Option("--match", metavar="ID", help="Analyse this match only.")] = None,
    samples: Annotated[int, typer.Option(metavar="N", help=f"Deals sampled per decision (1–{MAX_SAMPLES:,}).")]
    = DEFAULT_SAMPLES,
    seed: Annotated[int, typer.Option(metavar="S", help="Random seed: the same seed gives the same figures.")] = 0,
    output_format: Annotated[AnalysisFormat, typer.Option("--format", help="text, or json (players, matches and "
                                                                         "every decision).")] = AnalysisFormat.text,
    out: Annotated[Optional[str], typer.Option(metavar="DIR", help="Also write the Parquet tables decisions and "
                                                                  "analysis_players to DIR.")] = None,
) -> None:
    """Weigh every decision: its equity against the best action, from what the player could know and from the truth."""
    from ..analysis.summary import player_figures
    from ..analysis.walk import analyze_paths
    from ..views.terminal import shown

    if not 1 <= samples <= MAX_SAMPLES:
        raise typer.BadParameter(f"{samples:,} deals per decision: give 1 to {MAX_SAMPLES:,}", param_hint="--samples")
    if out is not None and Path(out).exists() and not Path(out).is_dir():
        raise typer.BadParameter(f"{shown(out)} is a file: name a folder", param_hint="--out")
    matches: list[MatchAnalysis] = []
    unreadable: list[InputError] = []
    for item in analyze_paths(paths, samples, seed, match):
        if isinstance(item, InputError):
            unreadable.append(item)
            typer.echo(f"drawlog analyze: {shown(str(item))}", err=True)
        else:
            matches.append(item)
    if unreadable and not matches:
        raise typer.Exit(EXIT_UNUSABLE)
    if match is not None and not matches:
        raise typer.BadParameter(f"no match {shown(match)} in the logs given", param_hint="--match")
    decisions = [decision for analysis in matches for decision in analysis.decisions]
    if out is not None:
        _write_tables(decisions, out)
    if output_format is AnalysisFormat.json:
        typer.echo(json.dumps(_document(matches, decisions, samples, seed), indent=1))
    else:
        typer.echo(_text(matches, player_figures(decisions), samples, seed))


def _write_tables(decisions: list[Decision], out: str) -> None:
    from ..analysis.summary import frames
    from ..views.terminal import shown

    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, frame in frames(decisions).items():
            frame.write_parquet(folder / f"{name}.parquet")
    except OSError as error:
        typer.echo(f"drawlog analyze: cannot write the tables to {shown(out)}: {error.strerror or error}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None


def _stop_text(analysis: MatchAnalysis) -> str:
    stop = analysis.stop
    if stop is None:
        return "" if analysis.finished else "no match_end: analysed as far as logged"
    return f"stopped at {stop.file}:{stop.line} ({stop.code} {stop.message}): its legal prefix is analysed"


def _text(matches: list[MatchAnalysis], figures: list[PlayerFigures], samples: int, seed: int) -> str:
    count = sum(len(a.decisions) for a in matches)
    lines = [f"{len(matches)} match{'es' if len(matches) != 1 else ''}, {count:,} decisions; "
             f"{samples} deals per decision, seed {seed}"]
    notes = [f"  {analysis.match} ({analysis.file}): {why}" for analysis in matches if (why := _stop_text(analysis))]
    lines += notes[:MAX_NOTES]
    if len(notes) > MAX_NOTES:
        lines.append(f"  … and {len(notes) - MAX_NOTES:,} more matches stopped early or unfinished "
                     f"(--format json lists them all)")
    if not figures:
        lines.append("no decisions to weigh")
        return "\n".join(lines)
    head = ("player", "game", "decisions", "accuracy", "mean error", "blunders", "mistakes", "inaccuracies",
            "peek rate", "peek z", "verdict")
    rows = [head]
    for each in figures:
        peek = f"{each.peek_rate:.0%} of {each.peek_decisions}" if each.peek_rate is not None else "-"
        rows.append((each.player, each.variant, f"{each.decisions:,}", f"{each.accuracy:.1f}",
                     f"{each.mean_error:.2f}", f"{each.per_100(each.blunders):.1f}",
                     f"{each.per_100(each.mistakes):.1f}", f"{each.per_100(each.inaccuracies):.1f}", peek,
                     f"{each.signal.z:+.1f}" if each.peek_decisions else "-", each.signal.verdict))
    widths = [max(len(row[column]) for row in rows) for column in range(len(head))]
    lines.append("")
    for row in rows:
        lines.append("  ".join(cell.ljust(width) if column < 2 or column == len(head) - 1 else cell.rjust(width)
                               for column, (cell, width) in enumerate(zip(row, widths))).rstrip())
    lines.append("(blunders, mistakes, inaccuracies: per 100 decisions; errors in points; peek z: peeks against "
                 "honest play, see README \"Analysis: drawlog analyze\")")
    return "\n".join(lines)


def _document(matches: list[MatchAnalysis], decisions: list[Decision], samples: int, seed: int) -> dict[str, Any]:
    from ..analysis.summary import frames

    tables = frames(decisions)
    return {
        "samples": samples, "seed": seed,
        "players": tables["analysis_players"].to_dicts(),
        "matches": [{"file": a.file, "match": a.match, "variant": a.variant, "players": list(a.players),
                     "decisions": len(a.decisions), "finished": a.finished,
                     "stopped": None if a.stop is None else {"file": a.stop.file, "line": a.stop.line,
                                                             "code": a.stop.code, "message": a.stop.message}}
                    for a in matches],
        "decisions": [{**row, "actions": [{"action": label, "equity": info, "omniscient_equity": omni}
                                          for label, info, omni in decision.actions]}
                      for row, decision in zip(tables["decisions"].to_dicts(), decisions)],
    }
