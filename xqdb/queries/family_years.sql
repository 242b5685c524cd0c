-- How popular each ECCO family (A-E) was, year by year.
--
-- One row per year and family: games of the family that year and their share of the
-- year's classified games, in percent. Only valid, dated games with an ECCO code count.
-- @param player=         only the games of this player (canonical name, see `xqdb players`)
-- @param side=either     with player: the games where they had red, black or either
-- @param from_year=      only games of this year or later
-- @param to_year=        only games of this year or earlier
-- @param event=          only games whose event contains this text
SELECT year, left(ecco, 1) AS family, count(*) AS games,
       round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY year), 1) AS share
FROM picked_games($player, $side, $from_year, $to_year, $event)
WHERE ecco IS NOT NULL AND year IS NOT NULL
GROUP BY year, family
ORDER BY year, family
