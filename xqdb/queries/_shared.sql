-- Definitions the reports share (not a report): created before each report runs.
--
-- picked_games(player, side, from_year, to_year, event): the valid games that pass a
-- report's filters, each with its players' canonical names (red_name, black_name).
-- opening_keys(by, ecco, names): the openings a game counts under: its ECCO code (by =
-- 'code'), its family letter ('family') or its traditional names ('name').
-- judged_moves(engine): the analysis's judgements, one per move (see below).
CREATE OR REPLACE TEMP MACRO picked_games(p_player, p_side, p_from_year, p_to_year, p_event)
AS TABLE
    SELECT g.*, r.name AS red_name, b.name AS black_name
    FROM games g
    LEFT JOIN players r ON r.player_id = g.red_player_id
    LEFT JOIN players b ON b.player_id = g.black_player_id
    WHERE g.status = 'valid'
      AND (p_player IS NULL
           OR (p_side IN ('red', 'either') AND r.name = p_player)
           OR (p_side IN ('black', 'either') AND b.name = p_player))
      AND (p_from_year IS NULL OR g.year >= CAST(p_from_year AS INTEGER))
      AND (p_to_year IS NULL OR g.year <= CAST(p_to_year AS INTEGER))
      AND (p_event IS NULL OR g.event ILIKE '%' || p_event || '%');

CREATE OR REPLACE TEMP MACRO opening_keys(p_by, p_ecco, p_names) AS
    CASE p_by WHEN 'code' THEN [p_ecco] WHEN 'family' THEN [left(p_ecco, 1)] ELSE p_names END;

-- judged_moves(engine): the analysis's judgement of each move (the `judgements` view), one
-- per move: that of the engine whose name starts with `engine`, or with no engine given,
-- that of the first engine by name that judged the move.
CREATE OR REPLACE TEMP MACRO judged_moves(p_engine) AS TABLE
    SELECT * FROM judgements
    WHERE p_engine IS NULL OR starts_with(engine, p_engine)
    QUALIFY row_number() OVER (PARTITION BY game_id, ply ORDER BY engine) = 1;
