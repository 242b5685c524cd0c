"""The front door of the library: one :class:`Database` object for every job on a database.

In the manner of sqlite-utils, each command of ``xqdb`` is one method here that returns
data (rows, summaries, dataclasses) and never prints; the command line only parses its
options, calls the method and shows what comes back. Errors are :class:`~xqdb.errors.XqdbError`
subclasses with a message and a hint.

>>> import tempfile, os
>>> from xqdb import Database
>>> folder = tempfile.mkdtemp()
>>> db = Database(os.path.join(folder, "games.duckdb"))
>>> with open(os.path.join(folder, "g.pgn"), "w") as f:
...     _ = f.write('[Red "胡荣华"]\\n[Black "杨官璘"]\\n[Result "1-0"]\\n1. h2e2 h9g7 1-0\\n')
>>> db.import_paths([os.path.join(folder, "g.pgn")], jobs=1).imported
1
>>> db.tree().rows[0][:2]
('炮二平五', 1)
>>> db.show(1).tags["Red"]
'胡荣华'
"""

from __future__ import annotations

import os
from datetime import datetime
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .analysis.calibration import (
    MIN_GAMES, MIN_POSITIONS, Calibration, CalibrationError, CheckedFit, CurveFit, Martingale,
    check_curve, checked_fit,
)
from .analysis.judgement import (
    JUDGEMENTS, LOSS_CLASSES, SERIOUS, JudgedMove, Thresholds, check_thresholds,
)
from .db.judgements import (
    MOVE_COLUMNS, Counted, Selection, StoredCurve, analysed_engines, counted, game_tags,
    database_pairs, database_samples, game_report, judged_martingale,
    player_report, store_curves, store_thresholds, stored_curve, stored_thresholds,
    worst_moves,
)
from .analysis.puzzles import Puzzle, PuzzleCount, find_puzzles, puzzle_pgn
from .browse.export import ExportSummary, export_games
from .browse.search import Found, MaterialPattern, search_material, search_position
from .browse.show import GameView, load_game
from .browse.tree import opening_tree
from .db.info import DatabaseInfo, database_info
from .db.lookup import require_game, require_player
from .db.openings import classify_database, explain_game
from .db.players import merge, split
from .db.queries import Query, Result, list_queries, run_query, run_sql
from .db.schema import Connection, connect, require_database
from .db.selection import GameFilter, resolve_player, resolved, select_games, selected_ids
from .engine import EngineError, EngineSpec, Limit, SupervisedEngine, choose_engine
from .errors import BadArgumentError, CannotRunError, NotFoundError
from .position import Position, position_after
from .render.report import build_report

if TYPE_CHECKING:
    # The import, the upgrade and the analysis load most of the package: a command that
    # only reads (``xqdb tree``) starts without them.
    from .db.upgrade import UpgradeSummary
    from .pipeline.analyze import AnalysisSummary
    from .pipeline.importer import ImportSummary

__all__ = ["Database", "CalibrationReport", "PuzzleReport", "JUDGEMENTS"]


@dataclass
class CalibrationReport:
    """What :meth:`Database.calibrate` did: the thresholds stored, each engine's fit, and
    the engines it could not fit with the reason; or, for a check alone, each engine's
    curve in use and both checks of it on the database's own analysis."""

    thresholds: Thresholds | None = None
    engines: dict[str, CurveFit | str] = field(default_factory=dict)
    """Each engine analysed, in order, with the fit stored or why none was."""
    checks: dict[str, CheckedFit] = field(default_factory=dict)
    """Each engine fitted, with its check on the games it did not see."""
    in_use: dict[str, tuple[StoredCurve, Calibration, Martingale]] = field(default_factory=dict)
    """With ``check``: each engine's curve in use, both checks of it through that curve,
    and the martingale as the judgement views give it."""

    @property
    def fitted(self) -> dict[str, CurveFit]:
        """The engines whose fit was stored, with their fits."""
        return {name: fit for name, fit in self.engines.items() if not isinstance(fit, str)}

    def lines(self) -> list[str]:
        """The report in words, a line per setting or engine, each fit with its checks."""
        out = []
        if self.thresholds is not None:
            out.append("thresholds: " + ", ".join(
                f"{name} {getattr(self.thresholds, name):g}" for name in LOSS_CLASSES))
        for name, fit in self.engines.items():
            out.append(f"{name}: {fit}: not stored" if isinstance(fit, str)
                       else f"{name}: {fit}: stored")
            if name in self.checks:
                out += ["  " + line for line in self.checks[name].lines()]
        for name, (curve, checks, judged) in self.in_use.items():
            out.append(f"{name}: {curve.describe()}")
            out.append(f"  as the judgements view judges the moves: {judged}")
            out += ["  " + line for line in checks.lines()]
        return out


@dataclass
class PuzzleReport:
    """The puzzles found among some blunders, and the engine that checked them."""

    puzzles: list[Puzzle]
    candidates: int
    engine: str
    count: PuzzleCount = field(default_factory=PuzzleCount)
    """How many blunders were tried, and why the others are no puzzles."""
    tags: dict[int, dict[str, str]] = field(default_factory=dict)
    """The tags of the games the puzzles come from, by game id."""

    def pgn(self) -> str:
        """The puzzles as PGN, numbered from 1, each with its game's tags."""
        return "\n".join(puzzle_pgn(p, n, self.tags.get(p.blunder.game_id))
                         for n, p in enumerate(self.puzzles, 1))


class Database:
    """A game database: a DuckDB file that xqdb made (or a connection to one).

    Given a path, each method opens the file for as long as it needs it, read-only unless it
    writes, so that another process can use the file between calls; given a connection, the
    methods use it as it is (reading and writing through it).

    >>> Database(":memory:").path
    ':memory:'
    """

    def __init__(self, path_or_connection: str | os.PathLike[str] | Connection
                 ) -> None:
        if isinstance(path_or_connection, Connection):
            self.connection: Connection | None = path_or_connection
            self.path = ""
        else:
            self.connection = None
            self.path = os.fspath(path_or_connection)

    def __repr__(self) -> str:
        return f"Database({self.path or self.connection!r})"

    @contextmanager
    def _open(self, write: bool = False) -> Iterator[Connection]:
        if self.connection is not None:
            yield self.connection
            return
        # Only an import makes a database: a mistyped path must not leave an empty one.
        con = connect(self.path, read_only=not write, create=False)
        try:
            yield con
        finally:
            con.close()

    def require(self) -> None:
        """Raise :class:`~xqdb.errors.DatabaseError` unless the database can be used (before
        a long job starts anything else, an engine say)."""
        if self.connection is None:
            require_database(self.path)

    def _require_games(self, con: Connection, games: GameFilter | None) -> None:
        """Raise :class:`~xqdb.errors.NotFoundError`, naming the file, for a game id of
        ``games`` that the database does not have."""
        for game_id in (games.game_ids or ()) if games is not None else ():
            require_game(con, game_id, self.path)

    def _needs_path(self, job: str) -> str:
        if not self.path:
            raise BadArgumentError(f"{job} works on a database file, not on a connection",
                                   "give Database the file's path")
        return self.path

    # --- making and describing ---------------------------------------------------------

    def import_paths(self, paths: Sequence[str], **options: Any) -> ImportSummary:
        """Import every record under ``paths`` (files, folders, archives, ``-``), creating
        the database if there is none; options as :func:`xqdb.pipeline.importer.import_paths`."""
        from .pipeline.importer import import_paths

        return import_paths(list(paths), self._needs_path("import"), **options)

    def info(self, top: int = 10) -> DatabaseInfo:
        """What the database holds: games, players, years, formats, invalid records."""
        with self._open() as con:
            return database_info(con, top=top, path=self.path)

    def upgrade(self) -> UpgradeSummary:
        """Bring a database of an older schema version up to date (the old file is kept)."""
        from .db.upgrade import upgrade

        return upgrade(self._needs_path("upgrade"))

    # --- players and openings ----------------------------------------------------------

    def players(self, search: str | None = None, limit: int = 100) -> Result:
        """The players under their canonical names, with their spellings and games."""
        return self.query("players", search=search, limit=str(limit))

    def alias(self, names: Sequence[str], as_: str) -> list[str]:
        """Merge the spellings or players ``names`` into the player ``as_``; returns the
        spellings moved."""
        with self._open(write=True) as con:
            return merge(con, list(names), as_)

    def split_spelling(self, spelling: str, as_: str | None = None) -> str:
        """Give ``spelling`` a player of its own (named ``as_``, or the spelling)."""
        with self._open(write=True) as con:
            return split(con, spelling, as_)

    def openings(self, player: str | None = None, side: str | None = None, *,
                 by: str = "code", from_year: int | None = None, to_year: int | None = None,
                 event: str | None = None, min_games: int = 1, sort: str = "games",
                 games: GameFilter | None = None) -> Result:
        """How often each opening was played and how it scored (``by`` code, family or
        name) in the games ``games`` selects; with a player and no side, that player's
        repertoire as Red and Black. The ``share`` column's label says of what."""
        games = _filter(games, player=player, side=side, from_=_text(from_year),
                        to=_text(to_year), event=event)
        common = dict(by=by, min_games=str(min_games), sort=sort)
        with self._open() as con:
            games = resolved(con, games)
            if games.player is not None and side is None and games.side == "either":
                result = run_query(con, "repertoire", games, player=games.player, **common)
                result.labels.update(win="Win %", loss="Loss %", score="Score %")
                selected = "of the player's games with that colour"
            else:
                result = run_query(con, "openings", games, **common)
                if games.player is not None:
                    result.labels["top_players"] = "Top opponents"
                total = select_games(con, games, check=False)
                selected = f"of {total:,} games" + (f" ({games.describe()})"
                                                      if not games.is_empty() else "")
        result.labels.update(share=f"Share % {selected}", opening=_KEY_HEADERS[by],
                             name={"code": "Opening", "family": "Family",
                                   "name": "Mostly as"}[by])
        return result

    def classify(self) -> int:
        """Classify every game again (after a better classifier); returns how many changed."""
        with self._open(write=True) as con:
            return classify_database(con)

    def explain(self, game_id: int) -> str:
        """Which moves gave game ``game_id`` its ECCO code, step by step."""
        with self._open() as con:
            require_game(con, game_id, self.path)  # naming the file
            return explain_game(con, game_id)

    # --- browsing ----------------------------------------------------------------------

    def tree(self, moves: str = "", fen: str | None = None, *, notation: str = "chinese",
             min_games: int = 1, mirror: bool = True, games: GameFilter | None = None,
             top_games: int = 3, with_partial: bool = False) -> Result:
        """Every move played from the position after ``moves`` (from ``fen``) in the games
        ``games`` selects, with its games, share, results, score, average year, distinct
        players and top games; transpositions merged, and with ``mirror`` the moves from
        the mirror image too (炮八平五 counted as 炮二平五). With ``with_partial``, invalid
        games count too, with their moves up to the failing one."""
        position = position_after(moves, fen)
        with self._open() as con:
            return opening_tree(con, position, notation=notation, min_games=min_games,
                                mirror=mirror, games=games, top_games=top_games,
                                with_partial=with_partial)

    def search(self, moves: str = "", fen: str | None = None, *, mirror: bool = False,
               notation: str = "chinese", limit: int = 100,
               games: GameFilter | None = None) -> Found:
        """The games that reached the position after ``moves`` (from ``fen``), in any move
        order, each at the first ply it got there (among those ``games`` selects)."""
        position = position_after(moves, fen)
        return self.search_position(position, mirror=mirror, notation=notation, limit=limit,
                                    games=games)

    def search_position(self, position: Position, *, mirror: bool = False,
                        notation: str = "chinese", limit: int = 100,
                        games: GameFilter | None = None) -> Found:
        """The games that reached ``position``."""
        with self._open() as con:
            return search_position(con, position, mirror=mirror, notation=notation,
                                   limit=limit, games=games)

    def search_material(self, pattern: str | MaterialPattern, *, plies: int = 1,
                        notation: str = "chinese", limit: int = 100,
                        games: GameFilter | None = None) -> Found:
        """The games that held a balance of material (``'R1 r0 N0 n1'``, ``'RNC>rnc'``) for
        at least ``plies`` plies in a row."""
        if isinstance(pattern, str):
            pattern = MaterialPattern.parse(pattern)
        with self._open() as con:
            return search_material(con, pattern, plies=plies, notation=notation, limit=limit,
                                   games=games)

    def export(self, out: str, format: str = "pgn", notation: str | None = None,
               where: str | None = None, game_ids: Sequence[int] = (),
               games: GameFilter | None = None) -> ExportSummary:
        """Write the games ``games`` selects (and ``where``, ``game_ids``) to ``out`` as PGN,
        DhtmlXQ or Parquet (a folder)."""
        games = _filter(games, where=where, game_ids=tuple(game_ids) or None)
        with self._open() as con:
            self._require_games(con, games)
            return export_games(con, out, format, notation, games=games)

    def show(self, game_id: int, ply: int | None = None, notation: str = "chinese") -> GameView:
        """One game for people: board, moves, tags, opening and analysis."""
        with self._open() as con:
            return load_game(con, game_id, ply, notation)

    # --- reports -----------------------------------------------------------------------

    def queries(self) -> list[Query]:
        """The named reports, with their parameters."""
        return list_queries()

    def query(self, name: str, games: GameFilter | None = None, **params: str | None
              ) -> Result:
        """Run the named report ``name`` with ``params`` bound (never pasted into the SQL),
        over the games ``games`` selects."""
        with self._open() as con:
            return run_query(con, name, games, **params)

    def sql(self, text: str) -> Result:
        """Run any SQL on the database, read-only."""
        with self._open() as con:
            return run_sql(con, text)

    def report(self, player: str | None = None, top: int = 30,
               games: GameFilter | None = None, links: Sequence[tuple[str, str]] = ()
               ) -> str:
        """The opening report as one self-contained HTML page: of the whole selection, or
        with a player, that player's dossier; ``links`` (text, address) go under its title."""
        with self._open() as con:
            return build_report(con, _filter(games, player=player), top=top, links=links)

    # --- analysis ----------------------------------------------------------------------

    def analyze(self, spec: EngineSpec, limit: Limit, **options: Any) -> AnalysisSummary:
        """Evaluate the positions of the games with the engine ``spec`` into ``evals``;
        options as :func:`xqdb.pipeline.analyze.analyse_database`; ``games``, the game
        filters, choose the games."""
        from .pipeline.analyze import analyse_database

        path = self._needs_path("analyze")
        require_database(path)
        games = options.pop("games", None)
        if games is not None and not games.is_empty():
            with self._open() as con:
                options["game_ids"] = selected_ids(con, games, valid_only=False)
            if not options["game_ids"]:
                raise NotFoundError(f"no game is {games.describe()}", "loosen the filters")
        return analyse_database(path, spec, limit, **options)

    def selection(self, engine: str | None = None, player: str | None = None,
                  game: int | None = None, classes: Sequence[str] = (),
                  thresholds: Thresholds | None = None, min_coverage: float = 0.0,
                  games: GameFilter | None = None,
                  **given: float | None) -> Selection:
        """The judged moves to report: by engine (the start of its identity, or an engine
        to run whose name is taken), player, game and class, judged with ``thresholds``
        (or those stored, changed by ``inaccuracy``/``mistake``/``blunder`` given), of the
        games whose moves were judged at least ``min_coverage`` (0..1) of."""
        if not 0 <= min_coverage <= 1:
            raise BadArgumentError(f"a coverage of {min_coverage:g} is not a share of moves",
                                   "give 0..1, such as 1 for games analysed to the end")
        with self._open() as con:
            if player is not None:
                player = resolve_player(con, player)
            if game is not None:
                require_game(con, game, self.path)
            if thresholds is None:
                thresholds = _thresholds(con, **given)
            ids = None
            if games is not None and not games.is_empty():
                self._require_games(con, games)
                ids = tuple(selected_ids(con, games, valid_only=False))
            return Selection(engine_prefix(con, engine), game, player, ids, tuple(classes),
                             thresholds, min_coverage)

    def blunders(self, selection: Selection, by: str = "move", limit: int | None = 20
                 ) -> Result:
        """The moves the analysis judges worst (``by`` move), or the figures per game or per
        player."""
        with self._open() as con:
            if by == "player":
                return player_report(con, selection)
            if by == "game":
                return game_report(con, selection)
            return Result(list(MOVE_COLUMNS), [m.row() for m in self.worst(selection, limit)])

    def counted(self, selection: Selection) -> list[Counted]:
        """What the reports of ``selection`` count, per engine: games, moves, classes."""
        with self._open() as con:
            return counted(con, selection)

    def worst(self, selection: Selection, limit: int | None = None) -> list[JudgedMove]:
        """The judged moves of ``selection``, worst first."""
        with self._open() as con:
            return worst_moves(con, selection, limit)

    def puzzles(self, selection: Selection, engine: str | None = None,
                nodes: int = 200_000) -> PuzzleReport:
        """Puzzles from the serious errors of ``selection``: the positions after them where
        only one move keeps the win, checked again at ``nodes`` by ``engine`` (the one
        installed when it cannot run)."""
        if not selection.classes:
            selection = replace(selection, classes=SERIOUS)
        with self._open() as con:
            candidates = worst_moves(con, selection, None)
            try:
                choice = choose_engine(engine)
            except EngineError:
                choice = choose_engine(None)
            with SupervisedEngine(choice.spec) as running:
                curve = stored_curve(con, running.identity).curve
                count = PuzzleCount()
                found = list(find_puzzles(running, Limit(nodes=nodes), candidates, curve,
                                          count=count))
            tags = game_tags(con, [p.blunder.game_id for p in found])
        return PuzzleReport(found, len(candidates), choice.message, count, tags)

    def calibrate(self, engine: str | None = None, min_ply: int = 20,
                  min_positions: int = MIN_POSITIONS, min_games: int = MIN_GAMES, *,
                  check: bool = False, inaccuracy: float | None = None,
                  mistake: float | None = None, blunder: float | None = None
                  ) -> CalibrationReport:
        """Fit each analysed engine's win curve (those whose identity starts with
        ``engine``) on games with known results and the engine's own best moves; store it
        (with any thresholds given) only if fitting beats the curve in use on games it did
        not see: each game predicted by a curve fitted on the others. With ``check``, fit
        nothing: check each engine's curve in use on the database's own analysis (the
        martingale over its best moves, the calibration by tenth for each side to move)."""
        report = CalibrationReport()
        with self._open(write=not check) as con:
            if not check:
                report.thresholds = _thresholds(con, inaccuracy, mistake, blunder)
                if report.thresholds is not None:
                    store_thresholds(con, report.thresholds)
            engines = [e for e in analysed_engines(con) if engine is None or e.startswith(engine)]
            if not engines:
                if report.thresholds is not None:
                    return report
                raise CannotRunError(
                    f"no analysis{' by ' + repr(engine) if engine else ''} in {self.path} "
                    "to fit", "run 'xqdb analyze --db FILE' first, on games with results")
            for name in engines:
                samples = database_samples(con, name, min_ply)
                pairs = database_pairs(con, name)
                in_use = stored_curve(con, name)
                if check:
                    report.in_use[name] = (in_use, check_curve(samples, pairs, in_use.curve),
                                           judged_martingale(con, name))
                    continue
                try:
                    checked = checked_fit(samples, pairs, in_use.curve, min_games=min_games,
                                          min_positions=min_positions)
                except CalibrationError as exc:
                    report.engines[name] = (f"{exc} (with a known result, from ply "
                                            f"{min_ply} on)")
                    continue
                report.checks[name] = checked
                if not checked.better:
                    report.engines[name] = (
                        f"{checked.fit}: a fit without each of the {checked.games} games "
                        f"does no better on it than the curve in use (martingale "
                        f"{checked.unseen.martingale.mean:+.4f} against "
                        f"{checked.current.martingale.mean:+.4f}, log loss "
                        f"{checked.unseen_log_loss:.4f} against {checked.current_log_loss:.4f})")
                    continue
                fit = checked.fit
                store_curves(con, [StoredCurve(name, fit.curve, fit.positions, fit.log_loss,
                                               f"{self.path}, positions from ply {min_ply} "
                                               f"of {checked.games} games, "
                                               f"{fit.best_moves:,} best moves",
                                               datetime.now())])
                report.engines[name] = fit
        return report


#: The header of the ``opening`` column, by what an opening is.
_KEY_HEADERS = {"code": "Code", "family": "Family", "name": "Name"}


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _filter(games: GameFilter | None, **given: object) -> GameFilter:
    """``games`` (or no filter) with the filters ``given`` that are not ``None``."""
    games = games or GameFilter()
    return replace(games, **{k: v for k, v in given.items() if v is not None})  # type: ignore[arg-type]


def _thresholds(con: Connection, inaccuracy: float | None = None,
                mistake: float | None = None, blunder: float | None = None
                ) -> Thresholds | None:
    """The thresholds given, the others as stored; ``None`` if none is given."""
    if inaccuracy is None and mistake is None and blunder is None:
        return None
    stored = stored_thresholds(con)
    given = Thresholds(stored.inaccuracy if inaccuracy is None else inaccuracy,
                       stored.mistake if mistake is None else mistake,
                       stored.blunder if blunder is None else blunder)
    try:
        return check_thresholds(given)
    except ValueError as exc:
        raise BadArgumentError(str(exc), "for example --inaccuracy 0.05 --mistake 0.1 "
                                         "--blunder 0.2") from None


def engine_prefix(con: Connection, engine: str | None) -> str | None:
    """The start of the ``evals.engine`` identities that ``engine`` selects: the text itself
    when an identity starts with it, else the name of the engine it runs."""
    analysed = analysed_engines(con)
    if not analysed:
        raise CannotRunError("the database holds no engine analysis",
                             "run 'xqdb analyze --db FILE' first")
    if engine is None or any(name.startswith(engine) for name in analysed):
        return engine
    try:
        with SupervisedEngine(choose_engine(engine).spec) as running:
            name: str | None = running.name
    except EngineError:
        name = None
    if name is None or not any(a.startswith(name) for a in analysed):
        raise NotFoundError(f"no analysis by engine {engine!r} in the database",
                            "the engines analysed: " + "; ".join(analysed))
    return name
