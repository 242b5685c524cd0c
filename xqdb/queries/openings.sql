-- How often each opening was played and how it scored: per ECCO code, per family A-E or per traditional name.
--
-- One row per opening: its name (by code: the ECCO opening and variation; by family: what
-- the family covers; by name: the ECCO code it is most often filed under), games (each
-- game once), share of the games selected by the filters (with or without an opening)
-- in percent, Red win / draw / Black win in percent and Red's score (a win 1, a draw 1/2),
-- over the games with a result (`1-0`, `0-1`, `1/2-1/2`; the others count in games and
-- share only), the average, first and last year, and the players who played it most
-- (either colour, with their games; with a player, their most frequent opponents). Only
-- valid games count. A game with several traditional names counts once under each, so
-- shares by name add up to more than 100.
-- @param by=code         what an opening is: code (ECCO), family (A-E) or name (traditional)
-- @param min_games=1     leave out openings with fewer games
-- @param sort=games      games (most played first) or score (best for Red first)
-- @param top=3           players listed per opening
WITH picked AS (
    SELECT * FROM picked_rows()
),
counted AS (  -- a game under each opening it counts for, once. Working that out costs
    -- more than counting (by name, about seven openings a game): what is counted of it is
    -- counted in two passes, one by player and one by the names filed under.
    -- By code or family a game has one key, which no unnesting needs to find.
    SELECT * FROM (SELECT opening_key($by, ecco) AS key, * FROM picked WHERE NOT by_name($by)
                   UNION ALL
                   SELECT unnest(opening_names) AS key, * FROM picked WHERE by_name($by))
    WHERE key IS NOT NULL
),
by_player AS (  -- counted by id first: far fewer rows to give names to
    SELECT key, pl.name, sum(c.n) AS n,
           row_number() OVER (PARTITION BY key ORDER BY sum(c.n) DESC, pl.name) AS rank
    FROM (SELECT key, player_id, count(*) AS n
          FROM (SELECT key, unnest([red_player_id, black_player_id]) AS player_id
                FROM counted)
          WHERE CAST($top AS INTEGER) > 0  -- none asked for: none counted
          GROUP BY key, player_id) c
    JOIN players pl USING (player_id)
    WHERE $player IS NULL OR pl.name <> $player  -- with a player: their opponents
    GROUP BY key, pl.name
),
top_players AS (
    SELECT key, string_agg(name || ' ' || n, ', ' ORDER BY n DESC, name) AS players
    FROM by_player WHERE rank <= CAST($top AS INTEGER) GROUP BY key
),
filed AS (  -- an opening's games by the names they are filed under, with their results
    -- and years: a few rows each, which give the opening its names and sum to its tally
    -- (grouped by one hash of the three names, which costs less than the names: two names
    -- of one opening would have to share all 64 bits to be counted as one; by family, the
    -- names are not wanted)
    SELECT key, any_value(opening) AS opening, any_value(variation) AS variation,
           any_value(ecco) AS ecco, count(*) AS n,
           count(*) FILTER (result = '1-0') AS red_wins,
           count(*) FILTER (result = '1/2-1/2') AS draws,
           count(*) FILTER (result = '0-1') AS black_wins,
           sum(year) AS year_sum, count(year) AS years,
           min(year) AS first_year, max(year) AS last_year
    FROM counted
    GROUP BY key, CASE WHEN $by <> 'family' THEN hash(opening, variation, ecco) END
),
labels AS (
    SELECT *, sum(n) OVER (PARTITION BY key, opening) AS by_opening,
           sum(n) OVER (PARTITION BY key, variation) AS by_variation,
           sum(n) OVER (PARTITION BY key, ecco) AS by_ecco
    FROM filed WHERE $by <> 'family'
),
named AS (  -- the most frequent of each, the first in order among as frequent ones
    SELECT key, arg_min(opening, {'n': -by_opening, 'name': opening}) AS opening,
           arg_min(variation, {'n': -by_variation, 'name': variation}) AS variation,
           arg_min(ecco, {'n': -by_ecco, 'name': ecco}) AS ecco
    FROM labels GROUP BY key
),
tally AS (
    SELECT key, CAST(sum(n) AS BIGINT) AS games,
           CAST(sum(red_wins) AS BIGINT) AS red_wins, CAST(sum(draws) AS BIGINT) AS draws,
           CAST(sum(black_wins) AS BIGINT) AS black_wins,
           CAST(sum(year_sum) AS DOUBLE) / sum(years) AS avg_year,
           min(first_year) AS first_year, max(last_year) AS last_year
    FROM filed GROUP BY key
)
SELECT t.key AS opening,
       CASE $by WHEN 'code' THEN n.opening WHEN 'family' THEN family_name(t.key)
                ELSE n.ecco END AS name,
       CASE WHEN $by = 'code' THEN n.variation END AS variation, t.games,
       pct(t.games, (SELECT count(*) FROM picked)) AS share,
       pct(t.red_wins, t.red_wins + t.draws + t.black_wins) AS red_win,
       pct(t.draws, t.red_wins + t.draws + t.black_wins) AS draw,
       pct(t.black_wins, t.red_wins + t.draws + t.black_wins) AS black_win,
       score_pct(t.red_wins, t.draws, t.black_wins) AS red_score,
       round(t.avg_year, 1) AS avg_year, t.first_year, t.last_year,
       tp.players AS top_players
FROM tally t LEFT JOIN named n USING (key) LEFT JOIN top_players tp USING (key)
WHERE t.games >= CAST($min_games AS INTEGER)
ORDER BY CASE WHEN $sort = 'score' THEN red_score END DESC NULLS LAST, t.games DESC, t.key
