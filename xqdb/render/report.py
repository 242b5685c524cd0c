"""The opening report: one self-contained HTML file, charts included, that works offline.

It is made of the named reports (:mod:`xqdb.db.queries`): the opening table with the top
players of each opening (``openings``), the popularity of the families by year
(``family_years``), results by family (``openings`` by family), the main lines of the
tree (``tree``, from :mod:`xqdb.browse.tree`) and the most played lines (``lines``). The
charts are Plotly figures; Plotly's JavaScript is written into the page once, so nothing
is fetched from a network. A script records any error the page raises
in ``#page-errors`` (empty when all went well), for a browser test to read::

    html = build_report(con, player="胡荣华")
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from dataclasses import replace

from ..db.fetch import analysed_count, doubtful_year_count
from ..db.judgements import judging_curves
from ..db.queries import Result, run_query
from .tables import header
from ..db.schema import Connection
from ..db.selection import GameFilter, select_games, selected_count

#: Years with fewer games than this are left out of the by-year chart (their shares swing
#: from 0 to 100 on a handful of games, and a lone game dated 1193 is a typing error).
MIN_YEAR_GAMES = 30
#: The same for one player's games.
MIN_PLAYER_YEAR_GAMES = 10
#: Fonts that hold Chinese, tried in order before the browser's own sans-serif.
CJK_FONTS = ('"Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN", '
             '"WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "Microsoft YaHei", "PingFang SC", '
             '"Hiragino Sans GB", "Heiti SC", "SimHei", sans-serif')
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
  body { font-family: """ + CJK_FONTS + """; margin: 2em; max-width: 80em; }
  h2 { margin-top: 2em; border-bottom: 2px solid #c0392b; }
  nav a { margin-right: 1em; }
  table { border-collapse: collapse; font-size: 0.9em; }
  th, td { border-bottom: 1px solid #ddd; padding: 0.2em 0.6em; text-align: left; }
  td.number { text-align: right; }
  td:first-child { white-space: nowrap; }
  #page-errors:empty { display: none; }
  #page-errors { color: #b00; }
</style>"""


def html_table(result: Result, table_id: str) -> str:
    """``result`` as an HTML table (numbers right-aligned, text escaped).

    >>> html_table(Result(["code", "games"], [("C", 2955)]), "t")
    '<table id="t"><tr><th>code</th><th>games</th></tr><tr><td>C</td><td class="number">2955</td></tr></table>'
    """
    head = "".join(f"<th>{html.escape(header(result, c))}</th>" for c in result.columns)
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


def _families_by_year(rows: Sequence[dict[str, object]], names: dict[str, str]) -> object:
    import plotly.graph_objects as go

    figure = go.Figure()
    for family in sorted({str(r["family"]) for r in rows}):
        mine = [r for r in rows if r["family"] == family]
        figure.add_trace(go.Scatter(x=[r["year"] for r in mine], y=[r["share"] for r in mine],
                                    mode="lines+markers",
                                    name=f"{family} {names.get(family, '')}"))
    figure.update_layout(title="Popularity of the families by year (% of the year's games)",
                         xaxis_title="year", yaxis_title="% of games", font_family=CJK_FONTS)
    return figure


def _results_by_family(rows: Sequence[dict[str, object]]) -> object:
    import plotly.graph_objects as go

    labels = [f"{r['opening']} {r['name'] or ''}" for r in rows]
    figure = go.Figure()
    for column, name, colour in (("red_win", "Red wins", "#c0392b"), ("draw", "draws", "#999"),
                                 ("black_win", "Black wins", "#222")):
        figure.add_trace(go.Bar(y=labels, x=[r[column] for r in rows], name=name,
                                orientation="h", marker_color=colour))
    figure.update_layout(barmode="stack", title="Results by family (% of games with a result)",
                         xaxis_title="%", font_family=CJK_FONTS)
    return figure


def _by_year(rows: Sequence[dict[str, object]]) -> object:
    import plotly.graph_objects as go

    figure = go.Figure()
    years = [r["group"] for r in rows]
    for column, name, colour in (("wins", "wins", "#27ae60"), ("draws", "draws", "#999"),
                                 ("losses", "losses", "#c0392b")):
        figure.add_trace(go.Bar(x=years, y=[r[column] for r in rows], name=name,
                                marker_color=colour))
    figure.update_layout(barmode="stack", title="Results by year (games)", xaxis_title="year",
                         font_family=CJK_FONTS)
    return figure


def _section(anchor: str, title: str, *parts: str) -> str:
    return f'<section id="{anchor}"><h2>{html.escape(title)}</h2>{"".join(parts)}</section>'


def _counted_years(rows: list[dict[str, object]], least: int
                   ) -> tuple[list[dict[str, object]], str]:
    """The by-year rows of the years with at least ``least`` games, and a note on those
    left out."""
    games: dict[object, int] = {}
    for r in rows:
        games[r["year"]] = games.get(r["year"], 0) + int(str(r["games"]))
    kept = {y for y, n in games.items() if n >= least}
    left = sorted((y for y in games if y not in kept), key=str)
    note = (f"<p class=\"note\">{len(left)} years with fewer than {least} classified "
            f"games are left out ({sum(games[y] for y in left):,} games"
            + (f", {left[0]}-{left[-1]}" if left else "") + ").</p>") if left else ""
    return [r for r in rows if r["year"] in kept], note


def build_report(con: Connection, games: GameFilter | None = None, top: int = 30,
                 links: Sequence[tuple[str, str]] = ()) -> str:
    """The report as one HTML page over the games ``games`` selects; with a player, their
    dossier. ``top`` is how many openings and lines the tables show; ``links``, pairs of
    text and address, are listed under the title (``xqdb serve`` links its explorer)."""
    from plotly.offline import get_plotlyjs

    from ..db.selection import resolved

    games = resolved(con, games or GameFilter())
    player = games.player
    codes = run_query(con, "openings", games, by="code")
    codes.labels.update(opening="Code", name="Opening")
    # The families' results are charted without their players, who cost half the query.
    families = run_query(con, "openings", games, by="family", top="0").records()
    names = {str(r["opening"]): str(r["name"] or "") for r in families}
    years, note = _counted_years(run_query(con, "family_years", games).records(),
                                 MIN_YEAR_GAMES if games.player is None else MIN_PLAYER_YEAR_GAMES)
    lines = run_query(con, "lines", games, limit=str(top))
    selected = selected_count(con)
    doubtful = doubtful_year_count(con)
    if doubtful:
        one = doubtful == 1
        note += (f"<p class=\"note\">{doubtful:,} {'game' if one else 'games'} whose Date "
                 "tag names a doubtful year (before 1920 or after today, with no other tag to "
                 f"date {'it' if one else 'them'}) {'is' if one else 'are'} left out of the "
                 "charts by year (see <code>year_note</code>).</p>")
    title = f"Dossier of {player}" if player else "Openings"
    described = games.describe()
    body = [f"<h1>{html.escape(title)}</h1>",
            f"<p id=\"selected\">{selected:,} games"
            + (f" ({html.escape(described)})" if described else "") + ".</p>"]
    if links:
        body.append('<nav id="links">' + "".join(
            f'<a href="{html.escape(href)}">{html.escape(text)}</a>' for text, href in links)
            + "</nav>")
    sections: list[tuple[str, str, list[str]]] = []
    if player:
        other = replace(games, player=None, side="either")
        for side in ("red", "black"):
            mine = run_query(con, "repertoire", other, player=player, by="code")
            mine.labels.update(opening="Code", name="Opening", win="Win %", loss="Loss %")
            rows = [r[1:] for r in mine.rows if r[0] == side][:top]
            sections.append((f"repertoire-{side}", f"Repertoire as {side.title()}",
                             [html_table(Result(mine.columns[1:], rows, mine.labels),
                                         f"repertoire-{side}")]))
        record = run_query(con, "player", other, player=player).records()
        by_year = [r for r in record if r["kind"] == "year"]
        by_year.sort(key=lambda r: str(r["group"]))
        opponents = [r for r in record if r["kind"] == "opponent"][:top]
        total = [r for r in record if r["kind"] in ("total", "colour")]
        keep = ["kind", "group", "games", "wins", "draws", "losses", "score"]
        sections.append(("record", "Record by colour", [html_table(Result(keep, [
            tuple(r[k] for k in keep) for r in total]), "record")]))
        sections.append(("years", "Results by year",
                         [_figure_html(_by_year(by_year), "results-by-year")]))
        sections.append(("opponents", "Most frequent opponents", [html_table(Result(
            ["opponent", "games", "wins", "draws", "losses", "score"],
            [(r["group"], r["games"], r["wins"], r["draws"], r["losses"], r["score"])
             for r in opponents]), "opponents")]))
        sections.append(("decisive", "Longest and shortest decisive games", [html_table(
            run_query(con, "decisive_lengths", other, player=player, limit="5"),
            "decisive")]))
        select_games(con, games, check=False)
        analysed = analysed_count(con)
        if analysed:
            curves = "".join(f"<li>{html.escape(text)}</li>" for text in judging_curves(con))
            sections.append(("phases", "Accuracy and blunders by phase", [
                f"<p>{analysed:,} of the {selected:,} games are analysed. Each move is "
                "judged by the drop in the mover's expected score, through the win curve "
                f"of the engine that analysed it:</p><ul class=\"note\">{curves}</ul>",
                html_table(run_query(con, "blunder_phases", other, player=player),
                           "blunder-phases")]))
        else:
            sections.append(("phases", "Accuracy and blunders by phase", [
                f"<p>None of the {selected:,} games is analysed yet "
                "(xqdb analyze --player NAME).</p>"]))
    else:
        tree = _main_lines(con, games)
        sections += [
            ("openings", "The openings by ECCO code, with their variations and top players",
             [html_table(Result(codes.columns, codes.rows[:top], codes.labels), "openings")]),
            ("tree", f"The main lines, to {MAIN_PLIES} plies", [
                f"<p class=\"note\">At most {MAIN_BRANCHES} moves from each position, each "
                f"played in at least {MAIN_SHARE:g}% of the games that reached it and in "
                f"{MAIN_LEAST} games; move orders and mirror images merged.</p>",
                html_table(tree, "tree")]),
        ]
    sections += [
        ("families", "Popularity of the families by year",
         [note, _figure_html(_families_by_year(years, names), "families-by-year")]),
        ("results", "Results by opening", [_figure_html(_results_by_family(families),
                                                        "results-by-family")]),
        ("lines", "The most played lines", [html_table(lines, "lines")]),
    ]
    if not player:
        players = run_query(con, "players", limit=str(top))
        keep = [c for c in players.columns if c != "written_as"]
        sections.append(("players", "Top players", [html_table(Result(keep, [
            tuple(v for c, v in zip(players.columns, r) if c != "written_as")
            for r in players.rows]), "top-players")]))
        sections.append(("endings", "How the games ended", [
            html_table(run_query(con, "endings", games), "endings")]))
        disagreements = run_query(con, "disagreements", games, limit=str(top))
        sections.append(("disagreements", "Results the rules disagree with",
                         [html_table(disagreements, "disagreements")]))
    nav = "<nav>" + "".join(f'<a href="#{a}">{html.escape(t)}</a>' for a, t, _ in sections) \
        + "</nav>"
    body.append(nav)
    body += [_section(a, t, *parts) for a, t, parts in sections]
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="zh"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>", _STYLE, "</head><body>", _ERRORS,
        f"<script>{get_plotlyjs()}</script>", *body, "</body></html>"])


#: How the report's tree of main lines grows: to this many plies, at most ``MAIN_BRANCHES``
#: moves per position, each played in at least ``MAIN_SHARE`` percent of the games that
#: reached its position and in ``MAIN_LEAST`` games (a line of three games is no main line).
MAIN_PLIES = 4
MAIN_BRANCHES = 3
MAIN_SHARE = 10.0
MAIN_LEAST = 10
#: The tree's columns the report shows, after the line.
_MAIN_COLUMNS = ["games", "share", "red_win", "draw", "black_win", "red_score", "avg_year",
                 "players"]


def _main_lines(con: Connection, games: GameFilter) -> Result:
    """The tree of the main lines from the start, depth first, each move with the tree's
    figures (its share is of the games that reached the position before it); transpositions
    and mirror images merged as ``xqdb tree`` merges them.

    A row's line is the move numbered and indented by its ply, so that the table reads as a
    tree: ``1. 炮二平五``, then ``1… 马8进7`` under it."""
    from ..browse.tree import opening_tree
    from ..position import Position

    rows: list[tuple[object, ...]] = []

    def grow(position: Position, ply: int) -> None:
        tree = opening_tree(con, position, games=games, top_games=0)
        at = {c: i for i, c in enumerate(tree.columns)}
        for row in tree.rows[:MAIN_BRANCHES]:
            if row[at["games"]] < MAIN_LEAST or (ply > 1 and row[at["share"]] < MAIN_SHARE):
                break
            number = f"{(ply + 1) // 2}." if ply % 2 else f"{ply // 2}…"
            rows.append(("\u2003" * (ply - 1) + f"{number} {row[0]}",
                         *(row[at[c]] for c in _MAIN_COLUMNS)))
            if ply < MAIN_PLIES:
                position.push_text(str(row[0]), "chinese")
                grow(position, ply + 1)
                position.pop()

    grow(Position(), 1)
    result = Result(["line", *_MAIN_COLUMNS], rows)
    result.labels.update(line="Line", games="Games", players="Players",
                         share="Share % of the position's games")
    return result
