"""The report's charts: Vega-Lite specifications built with altair, and the Vega runtime to inline in the page.

The data of each chart is an aggregate computed from the tables
(:mod:`drawlog.tables.report_charts`), embedded in the specification as
values: nothing is loaded when the page opens. The runtime (Vega, Vega-Lite
and Vega-Embed) comes from vl-convert, bundled into one script that the page
holds inline.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Any

from ..atomic import atomic_file

#: Each chart of the report: its id, heading and the sentence that says what it shows.
CHARTS = (
    ("points", "Points per round, by how the round ended",
     ("How many rounds scored each number of points (the winner's change of score), for rounds won by going "
      "out (domino), blocked rounds, and All Fives rounds a play ended by reaching the match target (target).")),
    ("stock", "Stock left at the end of rounds",
     "How many tiles were still in the stock (the boneyard in All Fives) when each round ended."),
    ("voluntary", "Voluntary-draw share per player",
     ("The share of a player's draws made while holding a playable tile (allowed in Draw while the stock "
      "holds more than two tiles).")),
    ("wins", "Win share per player",
     "The share of valid finished matches each player won."),
    ("ratings", "Rating over time per player",
     ("Each player's rating (openskill ordinal, mu − 3 sigma) after each valid finished match, as "
      "`drawlog ratings --history` gives it: by the matches' ts, or by the player's count of matches.")),
    ("scores", "Score over time in a match",
     "Each player's score after each round of the match chosen in the list below the chart."),
    ("over_time", "Violations over time",
     ("Violations per period of the matches' logged start time (ts), or, when the logs carry no times, per "
      "group of matches in the order they started.")),
)

WIDTH, HEIGHT = 420, 220
#: How a round ends (``rounds.reason``), in the charts' colour order.
REASONS = ("domino", "blocked", "target")


def _data(records: list[dict[str, Any]]) -> Any:
    import altair as alt

    return alt.Data(values=records)


def _faceted(chart: Any, data: dict[str, Any]) -> Any:
    """One panel per variant when the data holds several."""
    import altair as alt

    if data["variants"] > 1:
        return chart.properties(width=WIDTH // 2, height=HEIGHT).facet(
            column=alt.Column("variant:N", title=None))
    return chart.properties(width=WIDTH, height=HEIGHT)


def _points(data: dict[str, Any]) -> Any:
    import altair as alt

    records = data["records"]
    chart = alt.Chart(_data(records)).mark_bar().encode(
        x=alt.X("points:Q", bin=alt.Bin(maxbins=30), title="points of the round"),
        y=alt.Y("sum(rounds):Q", title="rounds"),
        color=alt.Color("reason:N", title="ended by", scale=alt.Scale(domain=list(REASONS))),
        tooltip=[alt.Tooltip("reason:N", title="ended by"), alt.Tooltip("points:Q", bin=alt.Bin(maxbins=30)),
                 alt.Tooltip("sum(rounds):Q", title="rounds")],
    )
    return _faceted(chart, data)


def _stock(data: dict[str, Any]) -> Any:
    import altair as alt

    records = data["records"]
    chart = alt.Chart(_data(records)).mark_bar().encode(
        x=alt.X("stock_left:O", title="tiles left in the stock"),
        y=alt.Y("sum(rounds):Q", title="rounds"),
        color=alt.Color("reason:N", title="ended by", scale=alt.Scale(domain=list(REASONS))),
        tooltip=[alt.Tooltip("stock_left:O", title="stock left"), alt.Tooltip("reason:N", title="ended by"),
                 alt.Tooltip("sum(rounds):Q", title="rounds")],
    )
    return _faceted(chart, data)


def _shares(data: dict[str, Any], title: str, weight: str) -> Any:
    import altair as alt

    records = data["records"]
    return alt.Chart(_data(records)).mark_bar(color="#4c78a8").encode(
        x=alt.X("share:Q", title=title, axis=alt.Axis(format="%"), scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("player:N", sort="-x", title=None),
        tooltip=[alt.Tooltip("player:N"), alt.Tooltip("share:Q", format=".1%"), alt.Tooltip(f"{weight}:Q")],
    ).properties(width=WIDTH, height={"step": 18})


def _scores(data: dict[str, Any]) -> Any:
    import altair as alt

    options = data["matches"] or [{"game": 0, "label": "no match"}]
    choice = alt.binding_select(options=[item["game"] for item in options],
                                labels=[item["label"] for item in options], name="match ")
    game = alt.param(name="game", value=options[0]["game"], bind=choice)
    return alt.Chart(_data(data["records"])).mark_line(point=True).encode(
        x=alt.X("round:Q", title="after round", axis=alt.Axis(tickMinStep=1)),
        y=alt.Y("score:Q", title="score"),
        color=alt.Color("player:N", title="player"),
        tooltip=[alt.Tooltip("player:N"), alt.Tooltip("round:Q"), alt.Tooltip("score:Q")],
    ).add_params(game).transform_filter("datum.game == game").properties(width=WIDTH, height=HEIGHT)


def _over_time(data: dict[str, Any]) -> Any:
    import altair as alt

    records = data["records"]
    colour = alt.Color("severity:N", title="severity", scale=alt.Scale(domain=["error", "warning"],
                                                                      range=["#d62728", "#ff9f1c"]))
    tooltip = [alt.Tooltip("severity:N"), alt.Tooltip("sum(violations):Q", title="violations")]
    if data["mode"] == "time":
        encoding = {"x": alt.X("start:T", title="match started (ts)"), "x2": "end:T",
                    "tooltip": [alt.Tooltip("start:T", title="from", format="%Y-%m-%d %H:%M"), *tooltip]}
    else:
        encoding = {"x": alt.X("left:Q", title="matches in the order they started"), "x2": "right:Q",
                    "tooltip": [alt.Tooltip("start:Q", title="from match"),
                                alt.Tooltip("end:Q", title="to match"), *tooltip]}
    chart = alt.Chart(_data(records)).mark_bar().encode(
        y=alt.Y("sum(violations):Q", title="violations"), color=colour, **encoding)
    if data["mode"] != "time":
        chart = chart.transform_calculate(left="datum.start - 0.5", right="datum.end + 0.5")
    return chart.properties(width=WIDTH, height=HEIGHT)


def _ratings(data: dict[str, Any]) -> Any:
    import altair as alt

    x = alt.X("at:T", title="match started (ts)") if data["mode"] == "time" \
        else alt.X("rated_matches:Q", title="rated matches played")
    return alt.Chart(_data(data["records"])).mark_line(point=False).encode(
        x=x, y=alt.Y("ordinal:Q", title="rating (ordinal)"), color=alt.Color("player:N", title="player"),
        tooltip=[alt.Tooltip("player:N"), alt.Tooltip("rated_matches:Q", title="matches"),
                 alt.Tooltip("ordinal:Q", format=".2f")],
    ).properties(width=WIDTH, height=HEIGHT)


def chart_specs(charts: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The Vega-Lite specification of each chart with data, by chart id (no ``$schema``: nothing to look up)."""
    builders = {
        "points": _points, "stock": _stock, "scores": _scores, "over_time": _over_time, "ratings": _ratings,
        "voluntary": lambda data: _shares(data, "voluntary draws / draws", "rounds"),
        "wins": lambda data: _shares(data, "matches won / valid finished matches", "matches"),
    }
    specs = {}
    for name, build in builders.items():
        data = charts[name]
        if not data["records"]:  # the page says so in place of an empty chart
            continue
        variants = len({row.get("variant") for row in data["records"]})
        spec = build({**data, "records": data["records"][:_CHECKED], "variants": variants}).to_dict()  # checked
        _put_records(spec, data["records"])
        spec.pop("$schema", None)
        specs[name] = spec
    return specs


#: Records a chart is checked with against the Vega-Lite schema (checking thousands of data values is slow).
_CHECKED = 5


def _put_records(spec: dict[str, Any], records: list[dict[str, Any]]) -> None:
    """All of a chart's records in place of the few it was checked with (altair keeps them in ``datasets``)."""
    datasets = spec.get("datasets")
    if datasets:
        (name,) = datasets
        datasets[name] = records
    else:
        spec["data"] = {"values": records}


#: Bump when :func:`vega_runtime` changes what it makes of vl-convert's bundle (the cached copies are remade).
_RUNTIME_FORMAT = 2
#: The end every runtime made here has: a cached copy without it is made again.
_RUNTIME_END = "\n// drawlog: the vega runtime ends here\n"


@functools.lru_cache(maxsize=1)
def vega_runtime() -> str:
    """Vega, Vega-Lite and Vega-Embed as one classic script that sets ``window.vegaEmbed``, safe to inline.

    Its only ``http://`` and ``https://`` strings are names, never fetched: XML
    namespaces, the schema's id, the Vega editor's address (for a menu the
    report turns off) and an issue cited in an error message. They are all in
    string literals, where ``:\\/\\/`` is the same string as ``://``; writing them
    so keeps every URL-like text out of the page.

    Bundling takes vl-convert about two seconds, so the script is kept in
    :func:`cache_folder` under a name that holds the versions it was made
    from, and read from there next time.
    """
    from importlib import metadata

    import altair as alt
    import vl_convert as vlc

    wanted = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    version = wanted if wanted in vlc.get_vegalite_versions() else None
    name = f"vega-runtime-{metadata.version('vl-convert-python')}-vl{version or 'default'}-{_RUNTIME_FORMAT}.js"
    folder = cache_folder()
    if folder is not None:
        try:
            kept = (folder / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            kept = ""
        if kept.endswith(_RUNTIME_END):
            return kept
    bundle = _runtime(vlc.javascript_bundle("window.vegaEmbed = vegaEmbed;", vl_version=version))
    if folder is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with atomic_file(folder / name, "w", encoding="utf-8") as handle:
                handle.write(bundle)
        except OSError:
            pass  # (a cache that cannot be written: made again next time)
    return bundle


def cache_folder() -> Path | None:
    """Where drawlog keeps what is slow to make: ``DRAWLOG_CACHE_DIR`` (empty: nowhere), else ``drawlog`` in
    ``XDG_CACHE_HOME`` or ``~/.cache``."""
    chosen = os.environ.get("DRAWLOG_CACHE_DIR")
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base, "drawlog")


def _runtime(bundle: str) -> str:
    """vl-convert's bundle made safe to inline (see :func:`vega_runtime`), with the end that marks it whole."""
    bundle = re.sub(r"\b(https?|file)://", r"\1:\\/\\/", bundle)
    if "</script" in bundle.lower():  # would end the page's script element early
        bundle = re.sub(r"</(script)", r"<\\/\1", bundle, flags=re.IGNORECASE)
    return bundle + _RUNTIME_END
