"""Executors: run a function over work items in worker processes, results in input order.

The local pool uses the ``fork`` start method on purpose: multiprocessing-logging relays
the workers' log records to the parent's handlers and only works with ``fork``. Forking a
process that already runs threads can deadlock the child, so the pool must be created
before DuckDB, a progress bar or any other thread starts, and one pool serves a whole
run. All of that lives in :func:`process_pool`, the one place to change if a future
Python forces another start method (the stdlib ``QueueHandler``/``QueueListener`` pair
would replace multiprocessing-logging here).

>>> with process_pool(2) as pool:
...     list(ordered_map(pool, abs, [-3, 1, -2], window=2))
[3, 1, 2]
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.pool
import os
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from multiprocessing_logging import MultiProcessingHandler, install_mp_handler, uninstall_mp_handler

T = TypeVar("T")
R = TypeVar("R")


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class _Pool(multiprocessing.pool.Pool):
    """A pool whose worker-maintenance thread sleeps until a worker exits or the pool
    changes state.

    The stock pool also wakes that thread whenever the result pipe is readable; it does
    not read the pipe, so while a large result is still being received it spins, burning
    a core's worth of time the workers need (a tenth of the parent's CPU in an import).
    Exited workers are already seen through their own sentinels, which stay watched.
    """

    def _get_sentinels(self) -> list[Any]:
        return [self._change_notifier._reader]  # type: ignore[attr-defined]


#: How much lower the workers' scheduling priority is than the parent's. The parent is the
#: one writer every result must pass through: when it has work it should get a core at
#: once rather than share it with a worker, or the workers end up waiting for it.
WORKER_NICENESS = 5


def _init_worker() -> None:
    # Ctrl-C goes to the whole process group; the parent decides what happens, so a
    # worker must not die with a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        os.nice(WORKER_NICENESS)
    except OSError:  # not allowed here: the workers simply keep the parent's priority
        pass


@contextmanager
def process_pool(jobs: int) -> Iterator[multiprocessing.pool.Pool | None]:
    """A pool of ``jobs`` forked workers whose logging reaches this process's handlers.

    ``jobs <= 1`` yields ``None``: the work then runs in this process (see
    :func:`ordered_map`), which keeps tracebacks and profiles simple.
    """
    if jobs <= 1:
        yield None
        return
    context = multiprocessing.get_context("fork")
    root = logging.getLogger()
    wrapped = not any(isinstance(h, MultiProcessingHandler) for h in root.handlers)
    if wrapped:
        install_mp_handler(root)
    pool = _Pool(jobs, initializer=_init_worker, context=context)
    try:
        yield pool
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
        if wrapped:
            relays = [h for h in root.handlers if isinstance(h, MultiProcessingHandler)]
            uninstall_mp_handler(root)
            for relay in relays:
                # close() waits until the relay thread has written every queued record.
                relay.close()


def ordered_map(pool: multiprocessing.pool.Pool | None, fn: Callable[[T], R],
                items: Iterable[T], window: int) -> Iterator[R]:
    """``map(fn, items)`` on ``pool``, in input order, with at most ``window`` items in flight.

    The window bounds memory: results that finish early wait for their turn, and no more
    than ``window`` of them can pile up however long the input is.
    """
    if pool is None:
        yield from map(fn, items)
        return
    pending: deque[multiprocessing.pool.AsyncResult[R]] = deque()
    for item in items:
        pending.append(pool.apply_async(fn, (item,)))
        if len(pending) >= max(1, window):
            yield pending.popleft().get()
    while pending:
        yield pending.popleft().get()
