-- Head-to-head: how two players fared against each other, with `player` having red, black, and in total.
--
-- One row per colour `player` had, then the total: games, `player`'s wins, draws and
-- losses, their score (a win 1, a draw 1/2; in percent) over the games with a result,
-- and the first and last year they met. Only valid games count.
-- @param player          one player (canonical name, see `xqdb players`)
-- @param opponent        the other player
WITH met AS (
    SELECT year,
           CASE WHEN red_name = $player THEN 'red' ELSE 'black' END AS side,
           CASE WHEN result = '1/2-1/2' THEN 'draw'
                WHEN result NOT IN ('1-0', '0-1') OR result IS NULL THEN NULL
                WHEN (result = '1-0') = (red_name = $player) THEN 'win' ELSE 'loss' END AS outcome
    FROM picked_games()
    WHERE (red_name = $player AND black_name = $opponent)
       OR (black_name = $player AND red_name = $opponent)
),
tally AS (
    SELECT coalesce(side, 'total') AS side, count(*) AS games,
           count(*) FILTER (outcome = 'win') AS wins,
           count(*) FILTER (outcome = 'draw') AS draws,
           count(*) FILTER (outcome = 'loss') AS losses,
           min(year) AS first_year, max(year) AS last_year
    FROM met
    GROUP BY GROUPING SETS ((side), ())
)
SELECT side, games, wins, draws, losses,
       score_pct(wins, draws, losses) AS score,
       first_year, last_year
FROM tally
ORDER BY CASE side WHEN 'red' THEN 0 WHEN 'black' THEN 1 ELSE 2 END
