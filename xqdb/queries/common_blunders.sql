-- The most common blunders: the same bad move in the same position, across games, with the position it comes from.
--
-- One row per position (its Zobrist key, `moves.key_before`, whatever move order reached
-- it) and move that the engine analysis judged `class` (the `judgements` view: see
-- `xqdb blunders`): how often it was played, in how many games, its average loss of
-- the mover's expected score (0..1), the engine's move there (the most frequent), and the
-- first game and ply where it happened (`xqdb show --db FILE GAME --ply PLY-1` shows the
-- position before it). With several engines, each move counts once (see `engine`).
-- @needs evals
-- @param class=blunder   which judgement counts: blunder, mistake, inaccuracy, allowed_mate or missed_mate
-- @param engine=         the judgements of the engine whose name starts so (default: per move, the first engine by name)
-- @param min_times=1     leave out moves so judged fewer times
-- @param limit=20        at most this many rows, most frequent first
WITH judged AS (
    SELECT m.key_before, m.side, m.chinese, j.game_id, j.ply, j.move, j.best_move, j.loss
    FROM judged_moves($engine) j
    JOIN moves m USING (game_id, ply)
    JOIN picked_games() g USING (game_id)
    WHERE j.class = $class
      AND ($player IS NULL
           OR (m.side = 'red' AND g.red_name = $player)
           OR (m.side = 'black' AND g.black_name = $player))
)
SELECT key_before AS position, side, min(chinese) AS move, min(move) AS uci,
       count(*) AS times, count(DISTINCT game_id) AS games,
       round(avg(loss), 3) AS avg_loss, most_common(best_move) AS best_move,
       arg_min(game_id, game_id * 10000 + ply) AS first_game,
       arg_min(ply, game_id * 10000 + ply) AS first_ply
FROM judged
GROUP BY key_before, side, move
HAVING count(*) >= CAST($min_times AS INTEGER)
ORDER BY times DESC, avg_loss DESC, first_game
LIMIT CAST($limit AS INTEGER)
