-- Each player's blunder rate by phase of the game: opening, middlegame and endgame.
--
-- One row per player and phase: the player's analysed moves in that phase (a move whose
-- position before it has an `ok` evaluation in `evals`, from any engine), how many the
-- analysis judged `class` (the `blunders` view), and the rate per 100 moves. The phase
-- of a move is decided by the position before it: endgame once at most `endgame_pieces`
-- chariots, horses and cannons (both sides together; 12 at the start) are left on the
-- board, else opening for the first `opening_plies` plies of the game, else middlegame.
-- @needs blunders
-- @needs evals
-- @param class=blunder       which judgement counts: blunder, mistake, inaccuracy, or a mate class
-- @param opening_plies=20    plies of the opening (20: ten moves each)
-- @param endgame_pieces=6    chariots, horses and cannons left at most in an endgame
-- @param min_moves=1         leave out rows with fewer analysed moves
-- @param player=             only this player (canonical name, see `xqdb players`)
-- @param from_year=          only games of this year or later
-- @param to_year=            only games of this year or earlier
-- @param event=              only games whose event contains this text
WITH picked AS (
    SELECT game_id, red_name, black_name,
           length(regexp_replace(split_part(start_fen, ' ', 1), '[^RNHCrnhc]', '', 'g'))
               AS start_pieces
    FROM picked_games($player, 'either', $from_year, $to_year, $event)
),
played AS (
    SELECT m.game_id, m.ply, m.key_before,
           CASE m.side WHEN 'red' THEN p.red_name ELSE p.black_name END AS player,
           p.start_pieces - coalesce(count(*) FILTER (upper(m.capture) IN ('R', 'N', 'H', 'C'))
               OVER (PARTITION BY m.game_id ORDER BY m.ply
                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS pieces
    FROM moves m JOIN picked p USING (game_id)
),
phased AS (
    SELECT game_id, ply, player,
           CASE WHEN pieces <= CAST($endgame_pieces AS INTEGER) THEN 'endgame'
                WHEN ply <= CAST($opening_plies AS INTEGER) THEN 'opening'
                ELSE 'middlegame' END AS phase
    FROM played
    WHERE player IS NOT NULL AND ($player IS NULL OR player = $player)
      AND key_before IN (SELECT key FROM evals WHERE status = 'ok')
)
SELECT player, phase, count(*) AS moves,
       count(b.game_id) AS blunders,
       round(100.0 * count(b.game_id) / count(*), 1) AS per_100
FROM phased p
LEFT JOIN blunders b ON b.game_id = p.game_id AND b.ply = p.ply AND b.class = $class
GROUP BY player, phase
HAVING count(*) >= CAST($min_moves AS INTEGER)
ORDER BY player, CASE phase WHEN 'opening' THEN 0 WHEN 'middlegame' THEN 1 ELSE 2 END
