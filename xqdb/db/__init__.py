"""The database side of xqdb: every column once (:mod:`.columns`), the schema
(:mod:`.schema`), the rows a worker stages (:mod:`.rows`), the single writer of an import
(:mod:`.writer`), the duplicate key (:mod:`.dedupe`), the summary of a database
(:mod:`.info`) and upgrades from older schema versions (:mod:`.upgrade`)."""

#: The formats a report is written in (``xqdb query --format``); here, where loading it
#: loads no DuckDB, for the command line's options.
OUTPUT_FORMATS = ("table", "csv", "json", "parquet")
