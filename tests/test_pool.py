"""The local pool's workers: forked processes that run below the parent's priority, with
the garbage collector set for the short-lived objects of reading and replay."""

from __future__ import annotations

import gc
import os

from xqdb.pipeline.executors import (WORKER_GC_THRESHOLDS, WORKER_NICENESS, ordered_map,
                                     process_pool)


def _settings(_: int) -> tuple[int, int, tuple[int, int, int], int]:
    """What a worker runs with: its process id, niceness, collector thresholds and the
    number of objects the collector leaves alone."""
    return (os.getpid(), os.getpriority(os.PRIO_PROCESS, 0), gc.get_threshold(),
            gc.get_freeze_count())


def test_workers_run_niced_with_the_collector_set_and_the_parent_untouched() -> None:
    parent_threshold = gc.get_threshold()
    parent_nice = os.getpriority(os.PRIO_PROCESS, 0)
    with process_pool(2) as pool:
        results = list(ordered_map(pool, _settings, range(8), window=8))
    for pid, nice, threshold, frozen in results:
        assert pid != os.getpid()
        assert nice == min(parent_nice + WORKER_NICENESS, 19)
        assert threshold == WORKER_GC_THRESHOLDS
        # What the fork copied (the modules, the parent's data) is never walked again.
        assert frozen > 10_000
    assert gc.get_threshold() == parent_threshold
    assert WORKER_GC_THRESHOLDS[0] > parent_threshold[0]
