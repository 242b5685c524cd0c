"""The jobs that run over many files or games in worker processes: the executors (local
pool or Dask cluster), the import, reading without a database, and engine analysis of a
database."""
