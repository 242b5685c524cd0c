"""The database side of xqdb: the schema (:mod:`.schema`), the single writer of an import
(:mod:`.writer`), the duplicate key (:mod:`.dedupe`) and the summary of a database
(:mod:`.info`)."""
