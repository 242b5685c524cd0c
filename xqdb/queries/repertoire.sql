-- A player's repertoire: what they open with as Red, what they answer with as Black, and how each scores for them.
--
-- One row per colour and opening: its name and variation (as in `openings`), games,
-- share of the player's games with that colour selected by the filters (every one of
-- them, whatever `min_games` leaves out), the player's win / draw / loss in percent and
-- their own score (a win 1, a draw 1/2) over the games with a result, and the average,
-- first and last year. Only valid games count.
-- @param player           the player (canonical name, see `xqdb players`)
-- @param by=code          what an opening is: code (ECCO), family (A-E) or name (traditional)
-- @param min_games=1      leave out openings with fewer games
-- @param sort=games       games (most played first) or score (best for the player first)
WITH mine AS (
    SELECT game_id, ecco, opening, variation, opening_names, year,
           CASE WHEN red_name = $player THEN 'red' ELSE 'black' END AS side,
           CASE WHEN result = '1/2-1/2' THEN 'draw'
                WHEN result = '1-0' THEN CASE WHEN red_name = $player THEN 'win' ELSE 'loss' END
                WHEN result = '0-1' THEN CASE WHEN red_name = $player THEN 'loss' ELSE 'win' END
           END AS outcome
    FROM picked_games()
    WHERE $player IN (red_name, black_name)
),
sides AS (SELECT side, count(*) AS selected FROM mine GROUP BY side),
keyed AS (  -- a game under each opening it counts for, once
    SELECT game_id, key
    FROM (SELECT game_id, unnest(opening_keys($by, ecco, opening_names)) AS key FROM mine)
    WHERE key IS NOT NULL
),
tally AS (
    SELECT m.side, k.key,
           CASE $by WHEN 'code' THEN most_common(m.opening) WHEN 'family' THEN family_name(k.key)
                    ELSE most_common(m.ecco) END AS name,
           CASE WHEN $by = 'code' THEN most_common(m.variation) END AS variation,
           count(*) AS games,
           count(*) FILTER (outcome = 'win') AS wins,
           count(*) FILTER (outcome = 'draw') AS draws,
           count(*) FILTER (outcome = 'loss') AS losses,
           avg(year) AS avg_year, min(year) AS first_year, max(year) AS last_year
    FROM keyed k JOIN mine m USING (game_id)
    GROUP BY m.side, k.key
)
SELECT side, key AS opening, name, variation, games,
       pct(games, s.selected) AS share,
       pct(wins, wins + draws + losses) AS win,
       pct(draws, wins + draws + losses) AS draw,
       pct(losses, wins + draws + losses) AS loss,
       score_pct(wins, draws, losses) AS score,
       round(avg_year, 1) AS avg_year, first_year, last_year
FROM tally JOIN sides s USING (side)
WHERE games >= CAST($min_games AS INTEGER)
ORDER BY side DESC, CASE WHEN $sort = 'score' THEN score END DESC NULLS LAST, games DESC, key
