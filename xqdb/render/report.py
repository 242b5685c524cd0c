"""The opening report: one self-contained HTML file, charts included, that works offline.

It is made of the named reports (:mod:`xqdb.db.queries`): the opening table with the top
players of each opening (``openings``), the popularity of the families by year
(``family_years``), results by family (``openings`` by family) and the most played lines
(``lines``). The charts are Plotly figures; Plotly's JavaScript is written into the page
once, so nothing is fetched from a network. A script records any error the page raises
in ``#page-errors`` (empty when all went well), for a browser test to read::

    html = build_report(con, player="胡荣华")
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import duckdb

from ..db.queries import Result, run_query

#: Families in ECCO order, with the names of what they cover.
FAMILIES = {"A": "非中炮类开局", "B": "中炮对反宫马及其他", "C": "中炮对屏风马",
            "D": "顺炮局和列炮局", "E": "仙人指路局"}

_ERRORS = """<pre id="page-errors"></pre>
<script>
  // Collects what would go to the console as an error, where a test can read it.
  (function () {
    var box = document.getElementById('page-errors');
    function note(text) { box.textContent += text + '\\n'; }
    window.addEventListener('error', function (e) { note('error: ' + e.message); });
    var original = console.error;
    console.error = function () { note('console.error: ' + Array.from(arguments).join(' '));
                                  original.apply(console, arguments); };
  })();
</script>"""

_STYLE = """<style>
  body { font-family: sans-serif; margin: 2em; }
  table { border-collapse: collapse; font-size: 0.9em; }
  th, td { border-bottom: 1px solid #ddd; padding: 0.2em 0.6em; text-align: left; }
  td.number { text-align: right; }
  #page-errors:empty { display: none; }
  #page-errors { color: #b00; }
</style>"""


def html_table(result: Result, table_id: str) -> str:
    """``result`` as an HTML table (numbers right-aligned, text escaped).

    >>> html_table(Result(["code", "games"], [("C", 2955)]), "t")
    '<table id="t"><tr><th>code</th><th>games</th></tr><tr><td>C</td><td class="number">2955</td></tr></table>'
    """
    head = "".join(f"<th>{html.escape(c)}</th>" for c in result.columns)
    rows = []
    for row in result.rows:
        cells = []
        for value in row:
            number = isinstance(value, int | float) and not isinstance(value, bool)
            text = "" if value is None else html.escape(str(value))
            cells.append(f'<td class="number">{text}</td>' if number else f"<td>{text}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return f'<table id="{table_id}"><tr>{head}</tr>{"".join(rows)}</table>'


def _figure_html(figure: object, div_id: str) -> str:
    return figure.to_html(full_html=False, include_plotlyjs=False, div_id=div_id)  # type: ignore[attr-defined]


def _families_by_year(rows: Sequence[dict[str, object]]) -> object:
    import plotly.graph_objects as go

    figure = go.Figure()
    for family, name in FAMILIES.items():
        mine = [r for r in rows if r["family"] == family]
        figure.add_trace(go.Scatter(x=[r["year"] for r in mine], y=[r["share"] for r in mine],
                                    mode="lines+markers", name=f"{family} {name}"))
    figure.update_layout(title="Popularity of the families by year (% of the year's games)",
                         xaxis_title="year", yaxis_title="% of games")
    return figure


def _results_by_family(rows: Sequence[dict[str, object]]) -> object:
    import plotly.graph_objects as go

    labels = [f"{r['opening']} {FAMILIES.get(str(r['opening']), '')}" for r in rows]
    figure = go.Figure()
    for column, name, colour in (("red_win", "Red wins", "#c0392b"), ("draw", "draws", "#999"),
                                 ("black_win", "Black wins", "#222")):
        figure.add_trace(go.Bar(y=labels, x=[r[column] for r in rows], name=name,
                                orientation="h", marker_color=colour))
    figure.update_layout(barmode="stack", title="Results by family (% of games with a result)",
                         xaxis_title="%")
    return figure


def build_report(con: duckdb.DuckDBPyConnection, player: str | None = None,
                 top: int = 30) -> str:
    """The report as one HTML page; ``player`` limits it to one player's games (canonical
    name), ``top`` is how many openings and lines the tables show."""
    from plotly.offline import get_plotlyjs

    filters = {"player": player}
    codes = run_query(con, "openings", by="code", **filters)
    families = run_query(con, "openings", by="family", **filters).records()
    years = run_query(con, "family_years", **filters).records()
    lines = run_query(con, "lines", limit=str(top), **filters)
    title = f"Openings of {player}" if player else "Openings"
    shown = Result(codes.columns, codes.rows[:top])
    body = [
        f"<h1>{html.escape(title)}</h1>",
        f"<p>{sum(int(str(r['games'])) for r in families):,} classified games.</p>",
        "<h2>The openings by ECCO code, with the players who play them most</h2>",
        html_table(shown, "openings"),
        "<h2>Popularity of the main families by year</h2>",
        _figure_html(_families_by_year(years), "families-by-year"),
        "<h2>Results by opening</h2>",
        _figure_html(_results_by_family(families), "results-by-family"),
        "<h2>The most played lines</h2>",
        html_table(lines, "lines"),
    ]
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="zh"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>", _STYLE, "</head><body>", _ERRORS,
        f"<script>{get_plotlyjs()}</script>", *body, "</body></html>"])
