-- Episodes the players went past: who gives perpetual check or chase and then changes.
--
-- One row per kind of episode (`rule_events.kind`) and player, over the episodes the record
-- goes on after (`played_on`): for a perpetual check or chase by one side, the player at
-- fault, who changed in time; for a repetition or the move limit (no side at fault) and a
-- perpetual by both sides, each of the two players. `episodes` counts them, `games` the
-- games, `then_won`/`then_lost` how many of those games the player's recorded result then
-- won or lost, `first_game` the first such game (`xqdb show --db FILE GAME_ID` lists its
-- episodes beside the moves). `settles` says how the verdict would have stood: `claimed`
-- or `must_change`.
-- @param kind=           only episodes of this kind (perpetual_check, perpetual_chase, repetition, move_limit)
-- @param player=         only this player (canonical name, see `xqdb players`)
-- @param from_year=      only games of this year or later
-- @param to_year=        only games of this year or earlier
-- @param event=          only games whose event contains this text
-- @param limit=1000      at most this many rows
WITH sides AS (
    SELECT e.game_id, e.kind, e.settles, s.side,
           CASE s.side WHEN 'red' THEN g.red_name ELSE g.black_name END AS player,
           g.result
    FROM rule_events e
    JOIN picked_games(NULL, 'either', $from_year, $to_year, $event) g USING (game_id)
    CROSS JOIN (VALUES ('red'), ('black')) s(side)
    WHERE e.played_on AND (e.side IS NULL OR e.side = s.side)
      AND ($kind IS NULL OR e.kind = $kind)
)
SELECT kind, coalesce(player, '?') AS player, any_value(settles) AS settles,
       count(*) AS episodes, count(DISTINCT game_id) AS games,
       count(DISTINCT game_id) FILTER (side = 'red') AS as_red,
       count(DISTINCT game_id) FILTER (side = 'black') AS as_black,
       count(DISTINCT game_id) FILTER (result = CASE side WHEN 'red' THEN '1-0' ELSE '0-1' END)
           AS then_won,
       count(DISTINCT game_id) FILTER (result = CASE side WHEN 'red' THEN '0-1' ELSE '1-0' END)
           AS then_lost,
       min(game_id) AS first_game
FROM sides
WHERE $player IS NULL OR player = $player
GROUP BY kind, player
ORDER BY episodes DESC, kind, player
LIMIT CAST($limit AS INTEGER)
