-- How often each opening was played and how it scored: per ECCO code, per family A-E or per traditional name.
--
-- One row per opening: games, share of the games counted, Red win / draw / Black win in
-- percent and Red's score (a win 1, a draw 1/2), over the games with a result (`1-0`,
-- `0-1`, `1/2-1/2`; the others count in games and share only), the average, first and
-- last year, and the players who played it most (either colour, with their games).
-- Only valid games count. A game with several traditional names counts under each.
-- @param by=code         what an opening is: code (ECCO), family (A-E) or name (traditional)
-- @param min_games=1     leave out openings with fewer games
-- @param sort=games      games (most played first) or score (best for Red first)
-- @param top=3           players listed per opening
WITH picked AS (
    SELECT * FROM picked_games()
),
keyed AS (  -- a game under each opening it counts for
    SELECT * FROM (SELECT game_id, unnest(opening_keys($by, ecco, opening_names)) AS key
                   FROM picked)
    WHERE key IS NOT NULL
),
counted AS (
    SELECT k.key, p.*
    FROM keyed k JOIN picked p USING (game_id)
),
by_player AS (
    SELECT key, pl.name, count(*) AS n,
           row_number() OVER (PARTITION BY key ORDER BY count(*) DESC, pl.name) AS rank
    FROM (SELECT key, red_player_id AS player_id FROM counted
          UNION ALL SELECT key, black_player_id FROM counted) c
    JOIN players pl USING (player_id)
    GROUP BY key, pl.name
),
top_players AS (
    SELECT key, string_agg(name || ' ' || n, ', ' ORDER BY n DESC, name) AS players
    FROM by_player WHERE rank <= CAST($top AS INTEGER) GROUP BY key
),
tally AS (
    SELECT key,
           CASE WHEN $by = 'code' THEN mode(opening) END AS name,
           count(*) AS games,
           count(*) FILTER (result = '1-0') AS red_wins,
           count(*) FILTER (result = '1/2-1/2') AS draws,
           count(*) FILTER (result = '0-1') AS black_wins,
           avg(year) AS avg_year, min(year) AS first_year, max(year) AS last_year
    FROM counted GROUP BY key
)
SELECT t.key AS opening, t.name, t.games,
       round(100.0 * t.games / (SELECT count(DISTINCT game_id) FROM keyed), 1) AS share,
       round(100.0 * t.red_wins / nullif(t.red_wins + t.draws + t.black_wins, 0), 1) AS red_win,
       round(100.0 * t.draws / nullif(t.red_wins + t.draws + t.black_wins, 0), 1) AS draw,
       round(100.0 * t.black_wins / nullif(t.red_wins + t.draws + t.black_wins, 0), 1) AS black_win,
       round(100.0 * (t.red_wins + 0.5 * t.draws)
             / nullif(t.red_wins + t.draws + t.black_wins, 0), 1) AS red_score,
       round(t.avg_year, 1) AS avg_year, t.first_year, t.last_year,
       tp.players AS top_players
FROM tally t LEFT JOIN top_players tp USING (key)
WHERE t.games >= CAST($min_games AS INTEGER)
ORDER BY CASE WHEN $sort = 'score' THEN red_score END DESC NULLS LAST, t.games DESC, t.key
