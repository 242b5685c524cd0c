-- The opening explorer: every move played from a position, with how often and how well.
--
-- One row per next move from the position with Zobrist key `key`, whatever move order
-- reached it (transpositions are merged): games, share of the games that played on from
-- the position, Red win / draw / Black win in percent and Red's score (a win 1, a draw 1/2)
-- over the games with a result, and the average year. A game that reaches the position
-- twice counts once per move it played there. Only valid games count, unless
-- `with_partial` is `yes`: then an invalid game counts too, with the moves it has up to
-- the one its record failed at (they were played; only what follows is lost).
-- @param key              Zobrist key of the position (`moves.key_before`, `games.start_key`)
-- @param notation=chinese how to write the moves: chinese, wxf, iccs or uci
-- @param min_games=1      leave out moves with fewer games
-- @param with_partial=no  yes: count the valid first moves of invalid games too
WITH here AS (
    SELECT DISTINCT m.game_id, m.move,
           CASE $notation WHEN 'wxf' THEN m.wxf WHEN 'iccs' THEN m.iccs WHEN 'uci' THEN m.uci
                ELSE m.chinese END AS text
    FROM moves m
    WHERE m.key_before = CAST($key AS UBIGINT)
),
tally AS (
    SELECT h.move, min(h.text) AS text, count(*) AS games,
           count(*) FILTER (g.result = '1-0') AS red_wins,
           count(*) FILTER (g.result = '1/2-1/2') AS draws,
           count(*) FILTER (g.result = '0-1') AS black_wins,
           avg(g.year) AS avg_year
    FROM here h JOIN games g USING (game_id)
    WHERE g.status = 'valid' OR $with_partial = 'yes'
    GROUP BY h.move
)
SELECT text AS move, games,
       round(100.0 * games / sum(games) OVER (), 1) AS share,
       round(100.0 * red_wins / nullif(red_wins + draws + black_wins, 0), 1) AS red_win,
       round(100.0 * draws / nullif(red_wins + draws + black_wins, 0), 1) AS draw,
       round(100.0 * black_wins / nullif(red_wins + draws + black_wins, 0), 1) AS black_win,
       round(100.0 * (red_wins + 0.5 * draws) / nullif(red_wins + draws + black_wins, 0), 1)
           AS red_score,
       round(avg_year, 1) AS avg_year
FROM tally
WHERE games >= CAST($min_games AS INTEGER)
ORDER BY games DESC, move
