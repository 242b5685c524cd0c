-- The longest and the shortest decisive games.
--
-- Rows of `kind` longest (most moves first), then shortest (fewest first): the game
-- (`xqdb show --db FILE GAME_ID` shows it), its plies and moves (a move is a ply of
-- each side), players, result, event and year. Decisive means a recorded result `1-0`
-- or `0-1`; only valid games count. Games set up from a position (puzzles, endgames)
-- are left out unless `start` is any.
-- @param limit=10        games of each kind
-- @param start=standard  standard (only games from the opening position) or any
WITH decisive AS (
    SELECT game_id, plies, red_name, black_name, result, event, year
    FROM picked_games()
    WHERE result IN ('1-0', '0-1')
      AND ($start = 'any'
           OR standard_start(start_fen))
),
ranked AS (
    SELECT 'longest' AS kind, row_number() OVER (ORDER BY plies DESC, game_id) AS rank, *
    FROM decisive
    UNION ALL
    SELECT 'shortest', row_number() OVER (ORDER BY plies, game_id), * FROM decisive
)
SELECT kind, rank, game_id, plies, (plies + 1) // 2 AS moves, red_name AS red,
       black_name AS black, result, event, year
FROM ranked
WHERE rank <= CAST($limit AS INTEGER)
ORDER BY kind, rank
