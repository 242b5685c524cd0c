"""A digest of every replayed field over the records of a collection: the check that a
change to the rules changed no result.

Run: ``python bench/replay_digest.py [PATH ...]`` (default ``../shared/data/ccpd-dev.zip``).
Prints the record count, the digest, and the CPU seconds the replay took. Two builds agree
when they print the same digest.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import time
from pathlib import Path

from xqdb.formats import read_paths
from xqdb.replay import ReplayedGame, replay

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def game_fields(game: ReplayedGame) -> str:
    """Every field of ``game`` but the record it came from, plus its derived verdicts."""
    values = {f.name: getattr(game, f.name) for f in dataclasses.fields(game)
              if f.name != "record"}
    values["uci"] = game.uci
    values["termination"] = game.termination
    values["rules_result"] = game.rules_result
    values["end"] = game.end
    values["notation"] = game.record.notation
    return repr(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("paths", nargs="*", default=[str(DATA / "ccpd-dev.zip")])
    args = parser.parse_args()
    records = list(read_paths(args.paths))
    digest = hashlib.sha256()
    start = time.process_time()
    games = [replay(record) for record in records]
    elapsed = time.process_time() - start
    for game in games:
        digest.update(game_fields(game).encode("utf-8"))
        digest.update(b"\n")
    print(f"{len(records):,} records, digest {digest.hexdigest()}, replay {elapsed:.2f} s CPU")


if __name__ == "__main__":
    main()
