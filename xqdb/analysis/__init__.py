"""Judging moves from engine evaluations: the judgement classes, games analysed move by
move, puzzles from blunders and fitting win curves. Below the database: these work on
evaluations, whoever stored them."""
