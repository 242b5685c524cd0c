-- Definitions the reports share (not a report): created before each report runs.
--
-- picked_games(player, side, from_year, to_year, event): the valid games that pass a
-- report's filters, each with its players' canonical names (red_name, black_name).
-- opening_keys(by, ecco, names): the openings a game counts under: its ECCO code (by =
-- 'code'), its family letter ('family') or its traditional names ('name').
-- judged_moves(engine): the analysis's judgements, one per move (see below).
-- standard_start(fen): whether a stored start position is the standard start, Red to move
-- (as xqdb.rules.position.is_standard_start says of a FEN).
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

CREATE OR REPLACE TEMP MACRO standard_start(p_fen) AS
    p_fen LIKE 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w%';

CREATE OR REPLACE TEMP MACRO opening_keys(p_by, p_ecco, p_names) AS
    CASE p_by WHEN 'code' THEN [p_ecco] WHEN 'family' THEN [left(p_ecco, 1)] ELSE p_names END;

-- judged_moves(engine): the analysis's judgement of each move (the `judgements` view), one
-- per move: that of the engine whose name starts with `engine`, or with no engine given,
-- that of the first engine by name that judged the move.
CREATE OR REPLACE TEMP MACRO judged_moves(p_engine) AS TABLE
    SELECT * FROM judgements
    WHERE p_engine IS NULL OR starts_with(engine, p_engine)
    QUALIFY row_number() OVER (PARTITION BY game_id, ply ORDER BY engine) = 1;

-- disagreement_kind(result, rules_result, termination): how a recorded result contradicts
-- how the record ends under the rules, NULL when it does not (or either is missing):
--   wrong_way_round            both decisive, the other side won (`1-0` for `0-1`)
--   draw_after_mate            a draw recorded for a record ending in mate or stalemate
--   draw_after_perpetual       a draw recorded after a perpetual check or chase by one side
--                              at the end (the side at fault did not change: it loses)
--   decisive_after_repetition  a win recorded for a record ending in a repetition with no
--                              side at fault (or both at fault): a draw, claimed or ruled
--   decisive_after_move_limit  a win recorded for a record ending at the move limit
-- A mate cannot be played past (no legal move follows it): a record that goes on after
-- a perpetual check and ends in mate agrees with a win for the mating side.
CREATE OR REPLACE TEMP MACRO disagreement_kind(p_result, p_rules, p_termination) AS
    CASE
        WHEN coalesce(p_result, '') NOT IN ('1-0', '0-1', '1/2-1/2') OR p_rules IS NULL
             OR p_result = p_rules THEN NULL
        WHEN p_result <> '1/2-1/2' AND p_rules <> '1/2-1/2' THEN 'wrong_way_round'
        WHEN p_termination IN ('checkmate', 'stalemate') THEN 'draw_after_mate'
        WHEN p_rules <> '1/2-1/2' THEN 'draw_after_perpetual'
        WHEN p_termination = 'move_limit' THEN 'decisive_after_move_limit'
        ELSE 'decisive_after_repetition'
    END;
