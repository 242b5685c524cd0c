"""Drawing for people: boards (text and SVG), tables fitted to a terminal (and CSV, JSON,
Parquet), and the HTML report. Nothing here prints or parses options."""
