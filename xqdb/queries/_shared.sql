-- Definitions the reports share (not a report): created before each report runs.
--
-- named_games(): every game with its players' canonical names (red_name, black_name).
-- picked_games(): the games the filters selected (the temporary table selected_games,
-- filled by xqdb.db.selection from --player, --side, --opponent, --from, --to, --event,
-- --result, --eco, --where and --game), with their players' canonical names.
-- picked_rows(): the same games without the names, for a report that shows none: joining
-- the names costs as much as counting every game.
-- pct(part, whole): part in percent of whole, one decimal (NULL for a whole of 0).
-- score_pct(wins, draws, losses): the score of the first side in percent (a win 1, a
-- draw 1/2) over the games with a result.
-- family_name(letter): what an ECCO family A-E covers.
-- opening_keys(by, ecco, names): the openings a game counts under: its ECCO code (by =
-- 'code'), its family letter ('family') or its traditional names ('name'), each once.
-- opening_key(by, ecco): the one opening a game counts under by code or by family (NULL
-- by name: by_name(by)), for a report that takes it without unnesting a list.
-- by_name(by): whether openings are counted by their traditional names (any `by` other
-- than code or family).
-- most_common(x): an aggregate, the most frequent value of x, the first in order among
-- values as frequent.
-- judged_moves(engine): the analysis's judgement of each move (the `judgements` view), one
-- per move: that of the engine whose name starts with `engine`, or with no engine given,
-- that of the first engine by name (created from xqdb.db.judgements.JUDGED_MOVES, beside
-- the rule it follows).
-- standard_start(fen): whether a stored start position is the standard start, Red to move
-- (as xqdb.rules.position.is_standard_start says of a FEN).

-- The selection the filters fill is the temporary table selected_games, and its rows of
-- games the view selected_rows (both made first by xqdb.db.selection.create_selection:
-- empty until a report over picked_games() runs).

-- The rows of the table or view named p_rows (rows of games) with their players' names.
CREATE OR REPLACE TEMP MACRO with_names(p_rows) AS TABLE
    SELECT g.*, r.name AS red_name, b.name AS black_name
    FROM query_table(p_rows) g
    LEFT JOIN players r ON r.player_id = g.red_player_id
    LEFT JOIN players b ON b.player_id = g.black_player_id;

CREATE OR REPLACE TEMP MACRO named_games() AS TABLE
    SELECT * FROM with_names('games');

CREATE OR REPLACE TEMP MACRO picked_rows() AS TABLE
    SELECT * FROM selected_rows;

CREATE OR REPLACE TEMP MACRO picked_games(p_player := NULL, p_side := 'either',
                                           p_from_year := NULL, p_to_year := NULL,
                                           p_event := NULL) AS TABLE
    -- The arguments narrow the selection further (the older form of the filters).
    SELECT * FROM with_names('selected_rows')
    WHERE (p_player IS NULL
           OR (p_side IN ('red', 'either') AND red_name = p_player)
           OR (p_side IN ('black', 'either') AND black_name = p_player))
      AND (p_from_year IS NULL OR year >= CAST(p_from_year AS INTEGER))
      AND (p_to_year IS NULL OR year <= CAST(p_to_year AS INTEGER))
      AND (p_event IS NULL OR contains(lower(event), lower(p_event)));

CREATE OR REPLACE TEMP MACRO pct(p_part, p_whole) AS
    round(100.0 * p_part / nullif(p_whole, 0), 1);

CREATE OR REPLACE TEMP MACRO score_pct(p_wins, p_draws, p_losses) AS
    pct(p_wins + 0.5 * p_draws, p_wins + p_draws + p_losses);

CREATE OR REPLACE TEMP MACRO family_name(p_letter) AS
    CASE p_letter WHEN 'A' THEN '非中炮类开局' WHEN 'B' THEN '中炮对反宫马及其他'
                  WHEN 'C' THEN '中炮对屏风马' WHEN 'D' THEN '顺炮局和列炮局'
                  WHEN 'E' THEN '仙人指路局' END;

-- most_common(x): an aggregate, the most frequent value of x (NULLs aside), the first in
-- order among values as frequent: mode() breaks such ties differently from run to run.
CREATE OR REPLACE TEMP MACRO most_common(p_x) AS
    list_sort(list_transform(map_entries(histogram(p_x)),
                             lambda e: {'n': -CAST(e.value AS BIGINT), 'value': e.key}))[1].value;

CREATE OR REPLACE TEMP MACRO standard_start(p_fen) AS
    p_fen LIKE 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w%';

-- A game's names are stored once each (xqdb.openings.names.opening_names gives a set), so
-- they are taken as they are: making them distinct again took twenty times as long as
-- unnesting them.
CREATE OR REPLACE TEMP MACRO by_name(p_by) AS p_by NOT IN ('code', 'family');

CREATE OR REPLACE TEMP MACRO opening_key(p_by, p_ecco) AS
    CASE p_by WHEN 'code' THEN p_ecco WHEN 'family' THEN left(p_ecco, 1) END;

CREATE OR REPLACE TEMP MACRO opening_keys(p_by, p_ecco, p_names) AS
    CASE WHEN by_name(p_by) THEN p_names ELSE [opening_key(p_by, p_ecco)] END;


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

-- mirror_square(square): the square's left-right mirror image (squares are rank * 9 + file).
CREATE OR REPLACE TEMP MACRO mirror_square(p_square) AS
    (p_square // 9) * 9 + 8 - p_square % 9;
