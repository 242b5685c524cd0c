"""Finding, exporting and showing the games of a database: position and material search,
PGN/DhtmlXQ/Parquet export, and one game for people."""
