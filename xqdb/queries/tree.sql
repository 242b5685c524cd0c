-- The opening explorer: every move played from a position, with how often and how well.
--
-- One row per next move from the position with Zobrist key `key`, whatever move order
-- reached it (transpositions are merged) and, with `mirror_key`, from its left-right
-- mirror image too, its moves mirrored back (炮八平五 counted with 炮二平五): the move
-- (`code`, as `moves.move`, in the position of `key`), games, share of the games that
-- played on from the position, Red win / draw / Black win in percent and Red's score (a
-- win 1, a draw 1/2) over the games with a result, the average year, the distinct players
-- who played the move, and the top games that did (the latest first: game id, players,
-- year, result). A game that reaches the position twice counts once per move it played
-- there. Only the valid games the filters select count.
-- @param key              Zobrist key of the position (`moves.key_before`, `games.start_key`)
-- @param mirror_key=      the key of its mirror image, to merge its moves in
-- @param min_games=1      leave out moves with fewer games
-- @param top_games=3      games listed per move
WITH here AS (  -- from position_keys, sorted by key: only the matches are read
    SELECT DISTINCT p.game_id,
           CASE WHEN p.key <> CAST($key AS UBIGINT) THEN mirrored
                -- A position that is its own mirror image (the start): a move and its
                -- mirror are one, written as the one on the right of the mover's board
                WHEN $mirror_key = $key THEN greatest(p.move, mirrored)
                ELSE p.move END AS move,
           CASE WHEN p.piece > 0 THEN 'red' ELSE 'black' END AS side
    FROM (SELECT *, mirror_square(move // 90) * 90 + mirror_square(move % 90) AS mirrored
          FROM positions_at($key, $mirror_key)) p
    WHERE p.move IS NOT NULL
),
-- The games found, joined on their own, then kept if selected, then given their players:
-- each step on the few rows found, not on every game of the database. The least and
-- greatest id found bound the reads of games and of the selection (ids are in order, so
-- a rare position reads a row group of each, not every game).
bounds AS MATERIALIZED (SELECT min(game_id) AS low, max(game_id) AS high FROM here),
reached AS MATERIALIZED (
    SELECT h.move, h.side, g.game_id, g.result, g.year, g.red_player_id, g.black_player_id
    FROM here h JOIN games g USING (game_id)
    WHERE g.game_id BETWEEN (SELECT low FROM bounds) AND (SELECT high FROM bounds)
),
found AS MATERIALIZED (
    SELECT * FROM reached WHERE game_id IN (
        SELECT game_id FROM selected_games
        WHERE game_id BETWEEN (SELECT low FROM bounds) AND (SELECT high FROM bounds))
),
tally AS (
    SELECT move, count(*) AS games,
           count(*) FILTER (result = '1-0') AS red_wins,
           count(*) FILTER (result = '1/2-1/2') AS draws,
           count(*) FILTER (result = '0-1') AS black_wins,
           avg(year) AS avg_year,
           count(DISTINCT CASE side WHEN 'red' THEN red_player_id ELSE black_player_id END)
               AS players
    FROM found GROUP BY move
),
latest AS (  -- the latest games of each move: a few kept per move as the rows go by,
    -- not every game found put in order (the year first, a game without one last, as
    -- xqdb.db.tree_counts keeps them for the counted tree); arg_max keeps fewer than a
    -- million, so a top_games beyond that lists that many
    SELECT move, unnest(arg_max(game_id, {'year': coalesce(year, -2147483648),
                                          'game_id': game_id},
                                least(greatest(CAST($top_games AS INTEGER), 1), 999999)))
               AS game_id
    FROM found WHERE CAST($top_games AS INTEGER) > 0
    GROUP BY move
),
top AS (  -- named only once they are picked
    SELECT t.move, string_agg(t.game_id || ' ' || coalesce(r.name, '?') || '-'
                              || coalesce(b.name, '?') || coalesce(' ' || t.year, '')
                              || ' ' || coalesce(t.result, '*'), '; '
                              ORDER BY t.year DESC NULLS LAST, t.game_id DESC) AS top_games
    FROM latest JOIN found t USING (move, game_id)
    LEFT JOIN players r ON r.player_id = t.red_player_id
    LEFT JOIN players b ON b.player_id = t.black_player_id
    GROUP BY t.move
)
SELECT move AS code, games,
       pct(games, sum(games) OVER ()) AS share,
       pct(red_wins, red_wins + draws + black_wins) AS red_win,
       pct(draws, red_wins + draws + black_wins) AS draw,
       pct(black_wins, red_wins + draws + black_wins) AS black_win,
       score_pct(red_wins, draws, black_wins) AS red_score,
       round(avg_year, 1) AS avg_year, players, top_games
FROM tally LEFT JOIN top USING (move)
QUALIFY games >= CAST($min_games AS INTEGER)
ORDER BY games DESC, move
