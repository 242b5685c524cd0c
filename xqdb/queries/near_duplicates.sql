-- Near-duplicates: games that are the start of another game, and records of one game under other tags.
--
-- Rows of `kind` prefix: game `game_id`'s moves are the first `plies` moves of the longer
-- game `other_game` (same start; an unfinished copy, or a game entered twice with its end
-- missing). Rows of `kind` retagged: a record (`source_id`, `record_index`) holds the same
-- moves as game `game_id` (so the import linked it there, `game_records.is_primary` false)
-- but other tags; `differs` names the tags that differ. Only valid games count; a
-- record with the same tags as its game is an exact copy and is not listed.
-- @param min_plies=10    leave out games shorter than this as prefixes (a game of a move or two is the start of thousands)
-- @param limit=1000      at most this many rows
WITH valid AS (
    SELECT game_id, start_key, plies, final_key, red, black, event, year
    FROM games WHERE status = 'valid'
),
-- The games that reached a shorter game's last position at its last ply (from
-- position_keys), found before the two games' starts are compared: most games share one.
ends AS MATERIALIZED (
    SELECT s.game_id, s.plies, s.start_key, m.game_id AS other_game
    FROM valid s
    JOIN all_positions() m ON m.key = s.final_key AND m.ply = s.plies
    WHERE s.plies >= CAST($min_plies AS INTEGER) AND m.game_id <> s.game_id
),
pairs AS MATERIALIZED (
    SELECT e.game_id, e.plies, e.other_game, l.plies AS other_plies
    FROM ends e
    JOIN valid l ON l.game_id = e.other_game AND l.start_key = e.start_key AND l.plies > e.plies
),
lines AS (  -- the shorter games' moves: of these games only, where a subquery per pair
    -- listed the moves of every game first
    SELECT game_id, list(move ORDER BY ply) AS line FROM moves
    WHERE game_id IN (SELECT game_id FROM pairs)
    GROUP BY game_id
),
prefix AS (
    SELECT 'prefix' AS kind, p.game_id, p.plies, p.other_game,
           NULL::BIGINT AS source_id, NULL::INTEGER AS record_index,
           'the other game goes on for ' || (p.other_plies - p.plies) || ' plies' AS differs
    FROM pairs p JOIN lines l USING (game_id)
    WHERE l.line = (SELECT list(move ORDER BY ply) FROM moves WHERE game_id = p.other_game
                    AND ply <= p.plies)
),
retagged AS (
    SELECT 'retagged' AS kind, g.game_id, v.plies, NULL::BIGINT AS other_game,
           r.source_id, r.record_index,
           (SELECT string_agg(k, ', ' ORDER BY k)
            FROM (SELECT unnest(list_distinct(json_keys(r.tags) || json_keys(g.tags))) AS k)
            WHERE (r.tags ->> k) IS DISTINCT FROM (g.tags ->> k)) AS differs
    FROM game_records r
    JOIN game_records g ON g.game_id = r.game_id AND g.is_primary
    JOIN valid v ON v.game_id = r.game_id
    WHERE NOT r.is_primary
)
SELECT * FROM (SELECT * FROM prefix UNION ALL SELECT * FROM retagged)
WHERE differs IS NOT NULL
ORDER BY kind, game_id, other_game, source_id, record_index
LIMIT CAST($limit AS INTEGER)
