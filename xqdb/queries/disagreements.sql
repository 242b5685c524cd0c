-- Results the rules disagree with: the recorded result next to the rules' verdict, with the reason.
--
-- One row per valid game whose recorded result (`1-0`, `0-1`, `1/2-1/2`) is not the
-- result the rules give for how it ended (`games.rules_result`): a repetition the players
-- did not claim, a perpetual check scored as a draw, a mate the record plays past. The
-- rules' reason names the moves; `ply` is the game's length.
-- @param termination=    only games that ended so (checkmate, perpetual_check, repetition...)
-- @param player=         only the games of this player (canonical name, see `xqdb players`)
-- @param from_year=      only games of this year or later
-- @param to_year=        only games of this year or earlier
-- @param event=          only games whose event contains this text
-- @param limit=1000      at most this many games
SELECT game_id, red_name AS red, black_name AS black, event, year, result AS recorded,
       rules_result AS rules, termination, plies, termination_reason AS reason
FROM picked_games($player, 'either', $from_year, $to_year, $event)
WHERE result IN ('1-0', '0-1', '1/2-1/2') AND result <> rules_result
  AND ($termination IS NULL OR termination = $termination)
ORDER BY game_id
LIMIT CAST($limit AS INTEGER)
