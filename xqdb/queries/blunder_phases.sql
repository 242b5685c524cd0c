-- Each player's blunder rate by phase of the game: opening, middlegame and endgame.
--
-- One row per player and phase: the player's moves the engine analysis judged (the
-- `judgements` view: a move with an evaluation before and after it; see `xqdb blunders`),
-- how many it judged `class`, and the rate per 100 judged moves. The phase of a move
-- is decided by the position before it: endgame once at most `endgame_pieces` chariots,
-- horses and cannons (both sides together; 12 at the start) are left on the board, else
-- opening for the first `opening_plies` plies of the game, else middlegame. With several
-- engines, each move counts once (see `engine`).
-- @needs evals
-- @param class=blunder       which judgement counts: blunder, mistake, inaccuracy, allowed_mate or missed_mate
-- @param engine=             the judgements of the engine whose name starts so (default: per move, the first engine by name)
-- @param opening_plies=20    plies of the opening (20: ten moves each)
-- @param endgame_pieces=6    chariots, horses and cannons left at most in an endgame
-- @param min_moves=1         leave out rows with fewer judged moves
WITH picked AS (
    SELECT game_id, red_name, black_name,
           length(regexp_replace(split_part(start_fen, ' ', 1), '[^RNHCrnhc]', '', 'g'))
               AS start_pieces
    FROM picked_games()
),
judged AS MATERIALIZED (
    SELECT game_id, ply, class FROM judged_moves($engine)
),
played AS (  -- the pieces left at each ply, of the games with judged moves only
    SELECT m.game_id, m.ply,
           CASE m.side WHEN 'red' THEN p.red_name ELSE p.black_name END AS player,
           p.start_pieces - coalesce(count(*) FILTER (upper(m.capture) IN ('R', 'N', 'H', 'C'))
               OVER (PARTITION BY m.game_id ORDER BY m.ply
                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS pieces
    FROM moves m JOIN picked p USING (game_id)
    WHERE m.game_id IN (SELECT game_id FROM judged)
),
phased AS (
    SELECT p.player, j.class,
           CASE WHEN p.pieces <= CAST($endgame_pieces AS INTEGER) THEN 'endgame'
                WHEN p.ply <= CAST($opening_plies AS INTEGER) THEN 'opening'
                ELSE 'middlegame' END AS phase
    FROM played p JOIN judged j USING (game_id, ply)
    WHERE p.player IS NOT NULL AND ($player IS NULL OR p.player = $player)
)
SELECT player, phase, count(*) AS moves,
       count(*) FILTER (class = $class) AS blunders,
       round(100.0 * count(*) FILTER (class = $class) / count(*), 1) AS per_100
FROM phased
GROUP BY player, phase
HAVING count(*) >= CAST($min_moves AS INTEGER)
ORDER BY player, CASE phase WHEN 'opening' THEN 0 WHEN 'middlegame' THEN 1 ELSE 2 END
