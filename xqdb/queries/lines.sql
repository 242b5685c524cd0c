-- The most played lines: the games' first moves, as played, most common first.
--
-- One row per sequence of the first `plies` moves (in Chinese): games that began with
-- it, share of the games counted, and Red's score (a win 1, a draw 1/2) over those with a
-- result. Only valid games from the standard start with at least `plies` moves count.
-- @param plies=6         how many moves make a line
-- @param limit=20        at most this many lines
WITH picked AS (
    SELECT game_id, result FROM picked_games()
    WHERE standard_start(start_fen)
      AND plies >= CAST($plies AS INTEGER)
),
line AS (
    SELECT m.game_id, any_value(p.result) AS result,
           string_agg(m.chinese, ' ' ORDER BY m.ply) AS line
    FROM moves m JOIN picked p USING (game_id)
    WHERE m.ply <= CAST($plies AS INTEGER)
    GROUP BY m.game_id
)
SELECT line, count(*) AS games,
       pct(count(*), (SELECT count(*) FROM line)) AS share,
       score_pct(count(*) FILTER (result = '1-0'), count(*) FILTER (result = '1/2-1/2'),
                 count(*) FILTER (result = '0-1')) AS red_score
FROM line
GROUP BY line
ORDER BY games DESC, line
LIMIT CAST($limit AS INTEGER)
