"""The rows a report or a query returns, with their column names: one type for every
report of the database (named queries, SQL, the analysis's summaries).

>>> Result(["move", "games"], [("炮二平五", 12)]).records()
[{'move': '炮二平五', 'games': 12}]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Result:
    """A report's rows, with their column names."""

    columns: list[str]
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    """Headers for people where they differ from the column's name (``share``: of what)."""

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row)) for row in self.rows]
