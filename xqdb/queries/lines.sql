-- The most played lines: the games' first moves, as played, most common first.
--
-- One row per sequence of the first `plies` moves (in Chinese): games that began with
-- it, share of the games counted, and Red's score (a win 1, a draw 1/2) over those with a
-- result. Only valid games from the standard start with at least `plies` moves count.
-- @param plies=6         how many moves make a line
-- @param limit=20        at most this many lines
WITH picked AS (
    SELECT game_id, result FROM picked_rows()
    WHERE standard_start(start_fen)
      AND plies >= CAST($plies AS INTEGER)
),
line AS (  -- a line is its move codes: grouped so, then written out for the few listed
    SELECT o.game_id, o.moves, p.result
    FROM opening_lines(CAST($plies AS INTEGER)) o JOIN picked p USING (game_id)
),
tally AS (  -- every line as many games play as the last one listed, ties included
    -- (grouped by a hash of the codes, which costs less than the list: two lines would
    -- have to share all 64 bits to be counted as one)
    SELECT hash(moves) AS line_hash, count(*) AS games, min(game_id) AS example,
           count(*) FILTER (result = '1-0') AS red_wins,
           count(*) FILTER (result = '1/2-1/2') AS draws,
           count(*) FILTER (result = '0-1') AS black_wins,
           sum(count(*)) OVER () AS counted
    FROM line
    GROUP BY hash(moves)
    QUALIFY rank() OVER (ORDER BY count(*) DESC) <= CAST($limit AS INTEGER)
),
written AS (
    SELECT t.line_hash, string_agg(m.chinese, ' ' ORDER BY m.ply) AS line
    FROM tally t JOIN moves m ON m.game_id = t.example AND m.ply <= CAST($plies AS INTEGER)
    GROUP BY t.line_hash
)
SELECT w.line, t.games,
       pct(t.games, t.counted) AS share,
       score_pct(t.red_wins, t.draws, t.black_wins) AS red_score
FROM tally t JOIN written w USING (line_hash)
ORDER BY t.games DESC, w.line
LIMIT CAST($limit AS INTEGER)
