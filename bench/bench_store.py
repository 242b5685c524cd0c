"""Benchmark: what DuckDB alone needs to store an import's rows, table by table.

Imports ``ccpd-dev.zip`` once, reads every table back as Arrow, then appends the rows
into a fresh database the way the writer does (Arrow tables scanned by INSERT, one DuckDB
thread, the importer's memory and checkpoint settings), in 1 and in 3 transactions, and
prints the seconds spent in INSERT, COMMIT and the final CHECKPOINT. This is the floor of
the storing time of ``bench_import.py``: no ids to decide, no waiting for workers.

    python bench/bench_store.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import duckdb

from xqdb.db.schema import create_schema
from xqdb.pipeline.importer import DUCKDB_CHECKPOINT, DUCKDB_MEMORY, import_paths

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
TABLES = ("sources", "games", "game_records", "raw_records", "stored_moves")


def store(tables: dict, path: Path, transactions: int) -> dict[str, float]:
    con = duckdb.connect(str(path))
    create_schema(con)
    con.execute(f"SET memory_limit = '{DUCKDB_MEMORY}'")
    con.execute(f"SET checkpoint_threshold = '{DUCKDB_CHECKPOINT}'")
    con.execute("SET threads = 1")
    spent = {"insert": 0.0, "commit": 0.0, "checkpoint": 0.0}
    for part in range(transactions):
        con.execute("BEGIN TRANSACTION")
        start = time.perf_counter()
        for name, table in tables.items():
            size = -(-len(table) // transactions)
            con.register("staged", table.slice(part * size, size))
            con.execute(f"INSERT INTO {name} SELECT * FROM staged")
            con.unregister("staged")
        committing = time.perf_counter()
        con.execute("COMMIT")
        spent["insert"] += committing - start
        spent["commit"] += time.perf_counter() - committing
    start = time.perf_counter()
    con.execute("CHECKPOINT")
    spent["checkpoint"] = time.perf_counter() - start
    con.close()
    return spent


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "imported.duckdb"
        import_paths([str(DATA / "ccpd-dev.zip")], source, jobs=1)
        con = duckdb.connect(str(source), read_only=True)
        tables = {name: con.sql(f"SELECT * FROM {name}").to_arrow_table() for name in TABLES}
        con.close()
        rows = ", ".join(f"{name} {len(table):,}" for name, table in tables.items())
        print(f"rows: {rows}")
        print(f"{'transactions':>12} {'insert s':>8} {'commit s':>8} {'checkpoint s':>12} "
              f"{'total s':>7} {'MiB':>5}")
        for transactions in (1, 3):
            for attempt in range(3):
                path = Path(folder) / f"store-{transactions}-{attempt}.duckdb"
                spent = store(tables, path, transactions)
                print(f"{transactions:>12} {spent['insert']:>8.3f} {spent['commit']:>8.3f} "
                      f"{spent['checkpoint']:>12.3f} {sum(spent.values()):>7.3f} "
                      f"{path.stat().st_size / 2**20:>5.1f}", flush=True)


if __name__ == "__main__":
    main()
