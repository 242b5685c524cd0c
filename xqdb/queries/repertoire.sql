-- A player's repertoire: what they open with as Red, what they answer with as Black, and how each scores for them.
--
-- One row per colour and opening: games, share of the player's games with that colour,
-- the player's win / draw / loss in percent and their score (a win 1, a draw 1/2) over the
-- games with a result, and the average, first and last year. Only valid games count.
-- @param player           the player (canonical name, see `xqdb players`)
-- @param by=code          what an opening is: code (ECCO), family (A-E) or name (traditional)
-- @param min_games=1      leave out openings with fewer games
-- @param sort=games       games (most played first) or score (best for the player first)
WITH mine AS (
    SELECT game_id, ecco, opening, opening_names, year,
           CASE WHEN red_name = $player THEN 'red' ELSE 'black' END AS side,
           CASE WHEN result = '1/2-1/2' THEN 'draw'
                WHEN result = '1-0' THEN CASE WHEN red_name = $player THEN 'win' ELSE 'loss' END
                WHEN result = '0-1' THEN CASE WHEN red_name = $player THEN 'loss' ELSE 'win' END
           END AS outcome
    FROM picked_games()
),
keyed AS (  -- a game under each opening it counts for
    SELECT game_id, key
    FROM (SELECT game_id, unnest(opening_keys($by, ecco, opening_names)) AS key FROM mine)
    WHERE key IS NOT NULL
),
tally AS (
    SELECT m.side, k.key,
           CASE WHEN $by = 'code' THEN mode(m.opening) END AS name,
           count(*) AS games,
           count(*) FILTER (outcome = 'win') AS wins,
           count(*) FILTER (outcome = 'draw') AS draws,
           count(*) FILTER (outcome = 'loss') AS losses,
           avg(year) AS avg_year, min(year) AS first_year, max(year) AS last_year
    FROM keyed k JOIN mine m USING (game_id)
    GROUP BY m.side, k.key
)
SELECT side, key AS opening, name, games,
       round(100.0 * games / sum(games) OVER (PARTITION BY side), 1) AS share,
       round(100.0 * wins / nullif(wins + draws + losses, 0), 1) AS win,
       round(100.0 * draws / nullif(wins + draws + losses, 0), 1) AS draw,
       round(100.0 * losses / nullif(wins + draws + losses, 0), 1) AS loss,
       round(100.0 * (wins + 0.5 * draws) / nullif(wins + draws + losses, 0), 1) AS score,
       round(avg_year, 1) AS avg_year, first_year, last_year
FROM tally
WHERE games >= CAST($min_games AS INTEGER)
ORDER BY side DESC, CASE WHEN $sort = 'score' THEN score END DESC NULLS LAST, games DESC, key
