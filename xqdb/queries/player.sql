-- A player's record: by colour, by year and by opponent, with their score and a performance figure.
--
-- One row per group (`total`, then each colour, year and opponent): games, wins, draws,
-- losses, points (a win 1, a draw 1/2) and score (points per game with a result, in
-- percent). The performance is the linear "rule of 400" over the games where the
-- opponent's rating (RedElo/BlackElo) is known: their average rating + 400 x (wins -
-- losses) / games rated; `rated` counts those games and `opp_elo` is that average (NULL
-- when no opponent of the group was rated). Only valid games with a result (`1-0`,
-- `0-1`, `1/2-1/2`) count.
-- @param player          the player (canonical name, see `xqdb players`)
WITH mine AS (
    SELECT game_id, year,
           CASE WHEN red_name = $player THEN 'red' ELSE 'black' END AS side,
           CASE WHEN red_name = $player THEN black_name ELSE red_name END AS opponent,
           CASE WHEN red_name = $player THEN black_elo ELSE red_elo END AS opp_elo,
           CASE WHEN result = '1/2-1/2' THEN 0
                WHEN (result = '1-0') = (red_name = $player) THEN 1 ELSE -1 END AS outcome
    FROM picked_games()
    WHERE result IN ('1-0', '0-1', '1/2-1/2')
),
grouped AS (
    SELECT CASE WHEN grouping(side) = 0 THEN 'colour' WHEN grouping(year) = 0 THEN 'year'
                WHEN grouping(opponent) = 0 THEN 'opponent' ELSE 'total' END AS kind,
           coalesce(side, CAST(year AS VARCHAR), opponent) AS "group",
           count(*) AS games,
           count(*) FILTER (outcome = 1) AS wins,
           count(*) FILTER (outcome = 0) AS draws,
           count(*) FILTER (outcome = -1) AS losses,
           count(opp_elo) AS rated,
           avg(opp_elo) AS opp_elo,
           sum(outcome) FILTER (opp_elo IS NOT NULL) AS rated_balance
    FROM mine
    GROUP BY GROUPING SETS ((), (side), (year), (opponent))
)
SELECT kind, "group", games, wins, draws, losses,
       wins + 0.5 * draws AS points,
       score_pct(wins, draws, losses) AS score,
       rated, round(opp_elo) AS opp_elo,
       round(opp_elo + 400.0 * rated_balance / nullif(rated, 0)) AS performance
FROM grouped
ORDER BY CASE kind WHEN 'total' THEN 0 WHEN 'colour' THEN 1 WHEN 'year' THEN 2 ELSE 3 END,
         CASE WHEN kind = 'opponent' THEN -games END, "group" DESC NULLS LAST
