-- Recorded results that contradict how the record ends under the rules, by kind.
--
-- One row per valid game whose recorded result (`1-0`, `0-1`, `1/2-1/2`) contradicts how
-- the record ends (`games.termination`: mate on the final position, a repetition, perpetual
-- check or chase whose cycle ends the record, the move limit). Records that end otherwise
-- (resignation, agreement, time) never count, nor do episodes the players went past
-- (`xqdb query played_on` lists those). `kind` says how the result contradicts the end:
-- `wrong_way_round` (the other side won), `draw_after_mate`, `draw_after_perpetual` (a draw
-- recorded although one side checked or chased to the end), `decisive_after_repetition`,
-- `decisive_after_move_limit`. `verdict_ply` is where the rules gave their verdict,
-- `end_ply` the last ply of the cycle that ends the record, `plies` the record's length.
-- @param kind=           only disagreements of this kind (wrong_way_round, draw_after_mate...)
-- @param termination=    only games that ended so (checkmate, perpetual_check, repetition...)
-- @param player=         only the games of this player (canonical name, see `xqdb players`)
-- @param from_year=      only games of this year or later
-- @param to_year=        only games of this year or earlier
-- @param event=          only games whose event contains this text
-- @param limit=1000      at most this many games
WITH found AS (  -- the games first, from the few columns that decide, then the rest of theirs
    SELECT game_id, disagreement_kind(result, rules_result, termination) AS found_kind
    FROM picked_games($player, 'either', $from_year, $to_year, $event)
    WHERE found_kind IS NOT NULL AND ($kind IS NULL OR found_kind = $kind)
      AND ($termination IS NULL OR termination = $termination)
    ORDER BY game_id
    LIMIT CAST($limit AS INTEGER)
)
SELECT game_id, red_name AS red, black_name AS black, event, year, result AS recorded,
       rules_result AS rules, f.found_kind AS kind, termination, verdict_ply, end_ply, plies,
       termination_reason AS reason
FROM found f JOIN picked_games($player, 'either', $from_year, $to_year, $event) USING (game_id)
ORDER BY game_id
