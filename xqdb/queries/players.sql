-- The players of the database under their canonical names, with every spelling of each and its games.
--
-- One row per player: the canonical name, games (as Red plus as Black), and the
-- spellings the records use for them, each with its games, most used first.
-- `xqdb players alias` merges and splits players when the naming rules got one wrong.
-- @param search=         only players whose name or a spelling contains this text
-- @param limit=100       at most this many players, most games first
WITH spelled AS (
    SELECT spelling, count(*) AS games
    FROM (SELECT red AS spelling FROM games UNION ALL SELECT black FROM games)
    WHERE spelling IS NOT NULL
    GROUP BY spelling
)
SELECT p.player_id, p.name, sum(s.games)::BIGINT AS games, count(*) AS spellings,
       string_agg(s.spelling || ' ' || s.games, ', ' ORDER BY s.games DESC, s.spelling)
           AS written_as
FROM players p
JOIN player_names n USING (player_id)
JOIN spelled s USING (spelling)
WHERE $search IS NULL OR p.player_id IN (
    SELECT n2.player_id FROM player_names n2 JOIN players p2 USING (player_id)
    WHERE contains(lower(p2.name), lower($search)) OR contains(lower(n2.spelling), lower($search)))
GROUP BY p.player_id, p.name
ORDER BY games DESC, p.name
LIMIT CAST($limit AS INTEGER)
