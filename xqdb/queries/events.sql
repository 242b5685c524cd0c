-- Results by event: how many games each event holds and how they ended.
--
-- One row per event (the `Event` tag): games, Red wins, draws, Black wins, Red's score (a
-- win 1, a draw 1/2; in percent) over the games with a result, the players who took part,
-- and the first and last year. Only valid games count; games without an event are left out.
-- @param min_games=1     leave out events with fewer games
-- @param limit=100       at most this many events, most games first
WITH picked AS (
    SELECT * FROM picked_rows()
    WHERE event IS NOT NULL
),
tally AS (
    SELECT event, count(*) AS games,
           count(*) FILTER (result = '1-0') AS red_wins,
           count(*) FILTER (result = '1/2-1/2') AS draws,
           count(*) FILTER (result = '0-1') AS black_wins,
           min(year) AS first_year, max(year) AS last_year
    FROM picked GROUP BY event
),
entrants AS (
    SELECT event, count(DISTINCT player_id) AS players
    FROM (SELECT event, red_player_id AS player_id FROM picked
          UNION ALL SELECT event, black_player_id FROM picked)
    GROUP BY event
)
SELECT event, games, red_wins, draws, black_wins,
       score_pct(red_wins, draws, black_wins)
           AS red_score,
       players, first_year, last_year
FROM tally JOIN entrants USING (event)
WHERE games >= CAST($min_games AS INTEGER)
ORDER BY games DESC, event
LIMIT CAST($limit AS INTEGER)
