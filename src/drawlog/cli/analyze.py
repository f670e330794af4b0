"""``drawlog analyze``: how good each decision was, per player (see :mod:`drawlog.analysis`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ..analysis.defaults import DEFAULT_SAMPLES
from ..errors import ClusterError, InputError
from .app import EXIT_UNUSABLE, ClusterOption, app

if TYPE_CHECKING:  # imported where used, not to list the commands (start-up time)
    from ..analysis.decisions import Decision
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
    out: Annotated[Optional[str], typer.Option(metavar="DIR", help="Also write the Parquet tables decisions, "
                                                                  "analysis_players and luck to DIR.")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", metavar="N", min=1, help="Processes weighing matches at once "
                                                                             "(default 1); the figures are the same "
                                                                             "as with one.")] = 1,
    cluster: ClusterOption = None,
) -> None:
    """Weigh every decision: its equity against the best action, from what the player could know and from the truth."""
    from ..views.terminal import shown

    if not 1 <= samples <= MAX_SAMPLES:
        raise typer.BadParameter(f"{samples:,} deals per decision: give 1 to {MAX_SAMPLES:,}", param_hint="--samples")
    if out is not None and Path(out).exists() and not Path(out).is_dir():
        raise typer.BadParameter(f"{shown(out)} is a file: name a folder", param_hint="--out")
    if cluster is not None and jobs > 1:
        raise typer.BadParameter("give --jobs or --cluster, not both", param_hint="--jobs/--cluster")
    matches: list[MatchAnalysis] = []
    unreadable: list[InputError] = []
    for item in _analysed(paths, samples, seed, match, jobs, cluster):
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
        _write_tables(matches, out)
    if output_format is AnalysisFormat.json:
        typer.echo(json.dumps(_document(matches, decisions, samples, seed), indent=1))
    else:
        typer.echo(_text(matches, samples, seed, moments=match is not None))


def _analysed(paths: list[str], samples: int, seed: int, match: str | None, jobs: int, cluster: str | None,
              ) -> Iterator[MatchAnalysis | InputError]:
    """The analyses, by ``jobs`` processes or ``cluster`` (:mod:`drawlog.analysis.parallel`); a cluster not usable: exit 2."""
    from ..analysis.parallel import analyze_in_parallel
    from ..views.terminal import shown

    try:
        if cluster is None:
            yield from analyze_in_parallel(paths, samples, seed, match, jobs)
        else:
            from ..tables.cluster import connect

            with connect(cluster) as client:
                yield from analyze_in_parallel(paths, samples, seed, match, jobs, client)
    except ClusterError as error:  # no dask, a scheduler not reached
        raise typer.BadParameter(shown(str(error)), param_hint="--cluster") from None


def _frames(matches: list[MatchAnalysis]) -> dict[str, Any]:
    """The analysis tables of ``matches``: decisions, analysis_players and luck."""
    from ..analysis.summary import frames

    return frames([d for a in matches for d in a.decisions], [v for a in matches for v in a.luck],
                  [r for a in matches for r in a.results])


def _write_tables(matches: list[MatchAnalysis], out: str) -> None:
    from ..views.terminal import shown

    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, frame in _frames(matches).items():
            frame.write_parquet(folder / f"{name}.parquet")
    except OSError as error:
        typer.echo(f"drawlog analyze: cannot write the tables to {shown(out)}: {error.strerror or error}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None


def _stop_text(analysis: MatchAnalysis) -> str:
    stop = analysis.stop
    if stop is None:
        return "" if analysis.finished else "no match_end: analysed as far as logged"
    return f"stopped at {stop.file}:{stop.line} ({stop.code} {stop.message}): its legal prefix is analysed"


def _per_round(total: float | None, rounds: int) -> str:
    return f"{total / rounds:+.1f}" if total is not None and rounds else "-"


def _text(matches: list[MatchAnalysis], samples: int, seed: int, moments: bool = False) -> str:
    from ..analysis.summary import player_figures

    figures = player_figures([d for a in matches for d in a.decisions], [v for a in matches for v in a.luck],
                             [r for a in matches for r in a.results])
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
            "peek rate", "peek z", "rounds", "result", "luck", "luck-adjusted", "verdict")
    rows = [head]
    for each in figures:
        peek = f"{each.peek_rate:.0%} of {each.peek_decisions}" if each.peek_rate is not None else "-"
        weighed = each.decisions > 0
        adjusted = None if each.luck is None else each.result - each.luck
        rows.append((each.player, each.variant, f"{each.decisions:,}", f"{each.accuracy:.1f}" if weighed else "-",
                     f"{each.mean_error:.2f}" if weighed else "-", f"{each.per_100(each.blunders):.1f}",
                     f"{each.per_100(each.mistakes):.1f}", f"{each.per_100(each.inaccuracies):.1f}", peek,
                     f"{each.signal.z:+.1f}" if each.peek_decisions else "-",
                     f"{each.rounds:,}", _per_round(each.result, each.rounds), _per_round(each.luck, each.rounds),
                     _per_round(adjusted, each.rounds), each.signal.verdict))
    widths = [max(len(row[column]) for row in rows) for column in range(len(head))]
    lines.append("")
    for row in rows:
        lines.append("  ".join(cell.ljust(width) if column < 2 or column == len(head) - 1 else cell.rjust(width)
                               for column, (cell, width) in enumerate(zip(row, widths))).rstrip())
    lines.append("(blunders, mistakes, inaccuracies: per 100 decisions; result, luck, luck-adjusted: points per "
                 "settled round; errors in points; peek z: peeks against honest play; see README \"Analysis: "
                 "drawlog analyze\")")
    if moments:
        lines += _moments_text(matches)
    return "\n".join(lines)


def _moments_text(matches: list[MatchAnalysis]) -> list[str]:
    from ..analysis.moments import TOP, critical_moments
    from ..views.terminal import shown

    lines = []
    for analysis in matches:
        found = critical_moments(analysis.decisions)
        title = (f"critical moments of {shown(analysis.match)} (the {TOP} largest errors and the {TOP} largest "
                 f"swings, points):")
        lines += ["", title]
        if not found:
            lines.append("  none: no decision with an error or a swing")
        for moment in found:
            d = moment.decision
            lines.append(f"  line {d.line:<6} round {d.round:<3} {shown(d.player)}: {d.action}, best {d.best} — "
                         f"error {d.error:.1f} ({d.error_class}), swing {d.swing:.1f}")
            if moment.command is not None:
                lines.append(f"    {shown(moment.command)}")
    return lines


def _document(matches: list[MatchAnalysis], decisions: list[Decision], samples: int, seed: int) -> dict[str, Any]:
    from ..analysis.moments import critical_moments

    tables = _frames(matches)
    return {
        "samples": samples, "seed": seed,
        "players": tables["analysis_players"].to_dicts(),
        "matches": [{"file": a.file, "match": a.match, "variant": a.variant, "players": list(a.players),
                     "decisions": len(a.decisions), "finished": a.finished,
                     "stopped": None if a.stop is None else {"file": a.stop.file, "line": a.stop.line,
                                                             "code": a.stop.code, "message": a.stop.message},
                     "critical_moments": [moment.as_dict() for moment in critical_moments(a.decisions)]}
                    for a in matches],
        "decisions": [{**row, "actions": [{"action": label, "equity": info, "omniscient_equity": omni}
                                          for label, info, omni in decision.actions]}
                      for row, decision in zip(tables["decisions"].to_dicts(), decisions)],
    }
