-- Games by how the record ends under the rules: checkmate, stalemate, perpetual check or chase, repetition, move limit, or not at all.
--
-- One row per termination (`none`: the record does not end under the rules, as after a
-- resignation or an agreed draw, though it may have gone past a repetition: see
-- `xqdb query played_on`): games, share of the games counted, the rules' verdicts
-- (Red wins, draws, Black wins), how many recorded results agree and disagree with the
-- verdict (`xqdb query disagreements` lists the latter), and the first game so ended.
-- Only valid games count.
SELECT coalesce(termination, 'none') AS termination, count(*) AS games,
       pct(count(*), sum(count(*)) OVER ()) AS share,
       count(*) FILTER (rules_result = '1-0') AS red_wins,
       count(*) FILTER (rules_result = '1/2-1/2') AS draws,
       count(*) FILTER (rules_result = '0-1') AS black_wins,
       count(*) FILTER (result = rules_result) AS recorded_agrees,
       count(*) FILTER (result IN ('1-0', '0-1', '1/2-1/2') AND result <> rules_result)
           AS recorded_differs,
       min(game_id) AS first_game
FROM picked_rows()
GROUP BY ALL
ORDER BY games DESC, termination
