-- How popular each ECCO family (A-E) was, year by year.
--
-- One row per year and family: games of the family that year and their share of the
-- year's classified games, in percent. Only valid, dated games with an ECCO code count.
SELECT year, left(ecco, 1) AS family, count(*) AS games,
       pct(count(*), sum(count(*)) OVER (PARTITION BY year)) AS share
FROM picked_rows()
WHERE ecco IS NOT NULL AND year IS NOT NULL
GROUP BY year, family
ORDER BY year, family
