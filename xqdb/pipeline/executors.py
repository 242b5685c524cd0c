"""Executors: run a function over work items in worker processes, results in input order.

Two executors share one interface (:class:`Executor`): the local process pool, the
default, and a Dask distributed cluster, for work that outgrows one machine. Both take the
same work items and the same worker functions, and both hand the results back in input
order, so the one writer that stores them assigns the same ids either way.

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
>>> with open_executor(jobs=2) as executor:
...     list(executor.map(abs, [-3, 1, -2])), executor.retried
([3, 1, 2], 0)
"""

from __future__ import annotations

import importlib.metadata
import itertools
import logging
import multiprocessing
import multiprocessing.pool
import os
import signal
import sys
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError
from contextlib import contextmanager
from typing import Any, TypeVar

from multiprocessing_logging import MultiProcessingHandler, install_mp_handler, uninstall_mp_handler

from ..errors import ClusterError

log = logging.getLogger(__name__)

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

    started: Any
    """Where the workers say which task each starts (see :func:`_tracked`)."""

    def renew(self) -> None:
        """Stop every worker and start as many anew, with fresh queues: what a worker
        that died held (a queue's lock) is let go. Tasks not finished are lost; the
        caller sends them again (see :class:`_Tracker`)."""
        processes, context = self._processes, self._ctx  # type: ignore[attr-defined]
        self.terminate()
        self.join()
        self.started = context.SimpleQueue()
        super().__init__(processes, initializer=_init_worker, initargs=(self.started,),
                         context=context)


#: How much lower the workers' scheduling priority is than the parent's. The parent is the
#: one writer every result must pass through: when it has work it should get a core at
#: once rather than share it with a worker, or the workers end up waiting for it.
WORKER_NICENESS = 5


#: Seconds between a waiting parent's looks at its workers, and a worker's at its parent.
WATCH_SECONDS = 0.5

#: Where each worker says which task it starts: ``(task number, pid)``. Made before the
#: pool forks, so every worker (those that replace a dead one too) inherits it.
_STARTED: Any = None


def _init_worker(started: Any = None) -> None:
    global _STARTED
    _STARTED = started
    # Ctrl-C goes to the whole process group; the parent decides what happens, so a
    # worker must not die with a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the pool stops its workers with it
    try:
        os.nice(WORKER_NICENESS)
    except OSError:  # not allowed here: the workers simply keep the parent's priority
        pass
    # A parent killed outright (kill -9) cannot stop its workers: each stops itself once
    # its parent is gone, rather than work on for nobody and die on a broken pipe.
    parent = os.getppid()
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_SECONDS)
    os._exit(0)


def _tracked(number: int, fn: Callable[[T], R], item: T) -> R:
    """``fn(item)`` in a worker, which first says it took task ``number``."""
    if _STARTED is not None:
        _STARTED.put((number, os.getpid()))
    return fn(item)


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
    started = context.SimpleQueue()
    pool = _Pool(jobs, initializer=_init_worker, initargs=(started,), context=context)
    pool.started = started
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
                items: Iterable[T], window: int,
                lost: Callable[[T, str], R] | None = None) -> Iterator[R]:
    """``map(fn, items)`` on ``pool``, in input order, with at most ``window`` items in flight.

    The window bounds memory: results that finish early wait for their turn, and no more
    than ``window`` of them can pile up however long the input is.

    A worker that dies (killed, out of memory) takes its task with it, and the pool would
    wait for that task forever: the dead worker is noticed, its task run once more on the
    worker that replaces it, and if that one dies too, ``lost(item, why)`` stands for its
    result (without ``lost``, :class:`TaskLostError` is raised).
    """
    if pool is None:
        yield from map(fn, items)
        return
    tracker = _Tracker(pool, fn, lost)
    for item in items:
        tracker.submit(item)
        if len(tracker.pending) >= max(1, window):
            yield tracker.next_result()
    while tracker.pending:
        yield tracker.next_result()


#: Times a task may lose its worker: once it is run again, twice it is given up.
TASK_RUNS = 2


class _Tracker:
    """The tasks in flight on a pool, which of its workers runs each, and what a dead
    worker costs.

    A worker of a ``multiprocessing`` pool that dies may take more than its task with
    it: killed while waiting for work, it holds the lock on the queue of tasks, and no
    other worker gets one again. So a death renews the whole pool (see
    :meth:`_Pool.renew`) and every task not finished is sent again; the ones the dead
    worker was running count one loss each.
    """

    def __init__(self, pool: multiprocessing.pool.Pool, fn: Callable[[Any], Any],
                 lost: Callable[[Any, str], Any] | None) -> None:
        self.pool, self.fn, self.lost = pool, fn, lost
        self.pending: deque[list[Any]] = deque()
        """``[number, item, async result or None when given up, losses]`` per task, in
        input order."""
        self.numbers = itertools.count()
        self.running: dict[int, int] = {}
        """Task number -> pid of the worker that took it."""
        self.workers = list(getattr(pool, "_pool", []))

    def submit(self, item: Any) -> None:
        self.pending.append([0, item, None, 0])
        self._send(self.pending[-1])

    def _send(self, entry: list[Any]) -> None:
        entry[0] = next(self.numbers)
        entry[2] = self.pool.apply_async(_tracked, (entry[0], self.fn, entry[1]))

    def next_result(self) -> Any:
        entry = self.pending[0]
        while entry[2] is not None:
            try:
                value = entry[2].get(timeout=WATCH_SECONDS)
                break
            except multiprocessing.TimeoutError:
                pass
            if hasattr(self.pool, "renew") and any(
                    w.exitcode is not None for w in self.workers):
                self._recover()
        self.pending.popleft()
        self.running.pop(entry[0], None)
        if entry[2] is None:
            why = f"the worker running it died, {TASK_RUNS} times (killed, or out of memory?)"
            if self.lost is None:
                raise TaskLostError(f"a task was lost: {why}",
                                    "what was stored stays: run the command again")
            return self.lost(entry[1], why)
        return value

    def _recover(self) -> None:
        """A worker died: charge its task, renew the pool, send what is unfinished again."""
        started = getattr(self.pool, "started")
        while not started.empty():
            number, pid = started.get()
            self.running[number] = pid
        dead = {w.pid for w in self.workers if w.exitcode is not None}
        unfinished = [e for e in self.pending if e[2] is not None and not e[2].ready()]
        for entry in unfinished:
            if self.running.get(entry[0]) in dead:
                entry[3] += 1
                log.warning("a worker (pid %s) died while running a task: %s",
                            self.running[entry[0]],
                            "running it again" if entry[3] < TASK_RUNS else "giving it up")
        self.pool.renew()  # type: ignore[attr-defined]
        self.workers = list(self.pool._pool)  # type: ignore[attr-defined]
        self.running.clear()
        for entry in unfinished:
            if entry[3] >= TASK_RUNS:
                entry[2] = None
            else:
                self._send(entry)


# --- executors: the local pool and a Dask cluster behind one interface -----------------

#: Seconds to wait for the scheduler to answer, and for a first worker to join it.
CONNECT_TIMEOUT = 10.0
WORKER_WAIT = 60.0
#: The logger whose records cluster workers send back to this process.
LOGGER = "xqdb"


class ExecutorError(ClusterError):
    """The work could not run where it was sent; the message says why in one line, and
    :attr:`hint` what to do about it."""


class ClusterUnavailableError(ExecutorError):
    """Dask is not installed, the scheduler does not answer, or no worker joins it."""


class WorkerSetupError(ExecutorError):
    """A worker lacks what the work needs (an input path, an engine, xqdb itself); the
    message names the worker."""


class TaskLostError(ExecutorError):
    """A task was lost too often: the workers running it died each time."""


def worker_name() -> str:
    """Who runs this code: the Dask worker's address, or the local process.

    >>> worker_name().startswith("MainProcess")
    True
    """
    # Only a process that imported Dask can be one of its workers; importing it here
    # would cost every local worker half a second.
    if "distributed" in sys.modules:
        from distributed import get_worker

        try:
            return str(get_worker().address)
        except ValueError:  # not inside a Dask task
            pass
    process = multiprocessing.current_process()
    return f"{process.name} (pid {os.getpid()})"


def require_paths(paths: Iterable[str], what: str, hint: str = "") -> None:
    """Raise :class:`WorkerSetupError`, naming this worker and the path, for the first of
    ``paths`` this worker cannot see.

    >>> require_paths(["/no/such/file"], "input")
    Traceback (most recent call last):
    ...
    xqdb.pipeline.executors.WorkerSetupError: worker MainProcess (pid ...) cannot see the input /no/such/file
    """
    for path in paths:
        if not os.path.exists(path):
            raise WorkerSetupError(f"worker {worker_name()} cannot see the {what} {path}", hint)


class Executor(ABC):
    """Runs a function over work items in workers, handing the results back in input
    order, with a bounded number of items in flight."""

    jobs: int
    """Work items that run at once."""
    local_processes: int
    """Processes of this machine that the workers keep busy (0 on a cluster): the
    cores left are for the one writer."""

    @abstractmethod
    def map(self, fn: Callable[[T], R], items: Iterable[T], window: int | None = None,
            lost: Callable[[T, str], R] | None = None) -> Iterator[R]:
        """``map(fn, items)`` on the workers, in input order, with at most ``window``
        items in flight (default: twice :attr:`jobs`). A task whose workers died each
        time it ran gives ``lost(item, why)`` instead, or raises :class:`TaskLostError`.

        ``fn`` must be a module-level function, and the items and results picklable.
        """

    @property
    def retried(self) -> int:
        """Tasks run again because the worker running them was lost."""
        return 0

    @property
    def is_local(self) -> bool:
        """Whether the workers run on this machine and see what it sees."""
        return True

    @property
    def in_this_process(self) -> bool:
        """Whether the work runs in this very process (a pool of one job)."""
        return False

    def describe(self) -> str:
        """Where the work runs, for a summary."""
        return f"{self.jobs} local processes"


class LocalExecutor(Executor):
    """The local process pool (see :func:`process_pool`); ``pool=None`` runs the work in
    this process."""

    def __init__(self, pool: multiprocessing.pool.Pool | None, jobs: int) -> None:
        self.pool = pool
        self.jobs = jobs
        # Without a pool the work runs in this process, which still takes a core.
        self.local_processes = jobs

    @property
    def in_this_process(self) -> bool:
        return self.pool is None

    def map(self, fn: Callable[[T], R], items: Iterable[T], window: int | None = None,
            lost: Callable[[T, str], R] | None = None) -> Iterator[R]:
        return ordered_map(self.pool, fn, items, window or 2 * self.jobs, lost)


class DaskExecutor(Executor):
    """The workers of a Dask distributed cluster, through a connected ``Client``.

    Each work item is one task. When a worker dies, the scheduler runs its tasks again on
    the others (up to Dask's ``distributed.scheduler.allowed-failures`` times each), so
    a lost worker costs only the tasks it held; :attr:`retried` counts them.
    """

    def __init__(self, client: Any, address: str, worker_wait: float = 60.0) -> None:
        self.client = client
        self.address = address
        self.worker_wait = worker_wait
        """Seconds the run waits for a worker once every one has left."""
        self.jobs = max(1, sum(client.nthreads().values()))
        self.local_processes = 0
        # Task keys unique to this run, so the scheduler's record of lost workers can be
        # matched with this run's tasks alone, and numbered across every map of the run:
        # a key submitted again while the scheduler still holds it returns the old result.
        self._run = uuid.uuid4().hex[:12]
        self._numbers = itertools.count()
        self._keys: set[str] = set()

    @property
    def is_local(self) -> bool:
        return False

    def describe(self) -> str:
        workers = len(self.client.nthreads())
        return f"cluster {self.address}, {workers} workers, {self.jobs} threads"

    @property
    def retried(self) -> int:
        lost: set[str] = set()
        for _, event in self.client.get_events("all"):
            if isinstance(event, dict) and event.get("action") == "remove-worker":
                lost.update(event.get("processing-tasks", ()))
                lost.update(event.get("lost-computed-tasks", ()))
        return len(lost & self._keys)

    def map(self, fn: Callable[[T], R], items: Iterable[T], window: int | None = None,
            lost: Callable[[T, str], R] | None = None) -> Iterator[R]:
        window = max(1, window or 2 * self.jobs)
        name = getattr(fn, "__name__", "task")
        pending: deque[Any] = deque()
        try:
            for number, item in zip(self._numbers, items):
                key = f"xqdb-{name}-{self._run}-{number}"
                self._keys.add(key)
                pending.append(self.client.submit(fn, item, key=key, pure=False))
                if len(pending) >= window:
                    yield self._result(pending.popleft())
            while pending:
                yield self._result(pending.popleft())
        finally:
            if pending:  # stopped early: the tasks still queued are not wanted
                self.client.cancel(list(pending))

    def _result(self, future: Any) -> Any:
        from distributed import KilledWorker

        try:
            return self._wait(future)
        except KilledWorker as exc:
            tries = exc.allowed_failures + 1
            died = ("the worker running it died" if tries == 1
                    else f"the workers running it died, {tries} times")
            raise TaskLostError(
                f"task {future.key} was lost: {died}",
                "see the workers' logs (out of memory?); Dask's "
                "distributed.scheduler.allowed-failures sets how often a task is retried") \
                from None
        except CancelledError:
            raise ClusterUnavailableError(
                f"the scheduler {self.address} dropped the work (it stopped, or the "
                "connection was lost)", "what was stored stays: run the command again") \
                from None
        finally:
            future.release()


    def _wait(self, future: Any) -> Any:
        """The future's result; raises :class:`ClusterUnavailableError` once the cluster
        has had no worker for :attr:`worker_wait` seconds (tasks would wait forever)."""
        alone_since: float | None = None
        while True:
            try:
                return future.result(timeout=WATCH_SECONDS * 4)
            except TimeoutError:
                pass
            if self.client.nthreads():
                alone_since = None
                continue
            now = time.monotonic()
            alone_since = alone_since or now
            if now - alone_since >= self.worker_wait:
                raise ClusterUnavailableError(
                    f"every worker of the cluster {self.address} is gone, and none joined "
                    f"in {self.worker_wait:.0f} s",
                    f"what was stored stays: start workers with `dask worker {self.address}` "
                    "and run the command again")


@contextmanager
def open_executor(jobs: int | None = None, scheduler: str | None = None,
                  worker_wait: float = WORKER_WAIT, connect_timeout: float = CONNECT_TIMEOUT
                  ) -> Iterator[Executor]:
    """The local pool of ``jobs`` processes (default: every core), or the Dask cluster
    whose scheduler is at ``scheduler`` (``tcp://HOST:8786``), for one run.

    A cluster is checked before any work is sent: the scheduler must answer within
    ``connect_timeout`` seconds, a worker must join within ``worker_wait`` seconds, and
    every worker must have this xqdb.
    Raises :class:`ClusterUnavailableError` or :class:`WorkerSetupError` otherwise.
    Like :func:`process_pool`, open it before DuckDB starts its threads.
    """
    if scheduler is None:
        jobs = jobs or default_jobs()
        with process_pool(jobs) as pool:
            yield LocalExecutor(pool, jobs)
        return
    with _dask_client(scheduler, worker_wait, connect_timeout) as client:
        yield DaskExecutor(client, scheduler, worker_wait)


@contextmanager
def _dask_client(scheduler: str, worker_wait: float, connect_timeout: float) -> Iterator[Any]:
    """A Dask client connected to ``scheduler``, with checked workers whose ``xqdb`` log
    records reach this process's handlers."""
    try:
        from distributed import Client
        from distributed.comm.addressing import parse_address, parse_host_port
    except ImportError:
        raise ClusterUnavailableError(
            "running on a cluster needs Dask distributed, which is not installed",
            "pip install 'xqdb[cluster]'") from None
    try:
        # Checked first: a client given a malformed address lingers and fails on exit.
        parse_host_port(parse_address(scheduler)[1])
    except ValueError:
        raise ClusterUnavailableError(f"{scheduler!r} is not a scheduler address",
                                      "give it as tcp://HOST:PORT, port 8786 by default") from None
    try:
        client = Client(scheduler, timeout=connect_timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ClusterUnavailableError(
            f"cannot reach the scheduler {scheduler}: {str(exc).splitlines()[0]}",
            f"start one with `dask scheduler` and give its address (tcp://HOST:8786)") \
            from None
    forwarding = False
    try:
        try:
            client.wait_for_workers(1, timeout=worker_wait)
        except TimeoutError:
            raise ClusterUnavailableError(
                f"no worker joined the scheduler {scheduler} in {worker_wait:.0f} s",
                f"start workers with `dask worker {scheduler} --nthreads 1`") from None
        _check_workers(client)
        level = logging.getLogger(LOGGER).getEffectiveLevel()
        client.register_plugin(_log_level_plugin(LOGGER, level), name=_LOG_LEVEL_PLUGIN)
        client.forward_logging(LOGGER, level)
        forwarding = True
        yield client
    finally:
        if forwarding:
            try:
                client.unforward_logging(LOGGER)
            except Exception:  # the scheduler is gone: nothing is forwarded any more
                pass
        client.close()


def _check_workers(client: Any) -> None:
    """Raise :class:`WorkerSetupError` for a worker without this version of xqdb (it
    could not even load the tasks)."""
    version = importlib.metadata.version("xqdb")
    found = client.run(importlib.metadata.version, "xqdb", on_error="return")
    for worker, theirs in sorted(found.items()):
        if isinstance(theirs, BaseException):
            raise WorkerSetupError(f"worker {worker} has no xqdb installed",
                                   f"pip install 'xqdb[cluster]=={version}' on every worker")
        if theirs != version:
            raise WorkerSetupError(f"worker {worker} has xqdb {theirs}, this machine {version}",
                                   f"pip install 'xqdb[cluster]=={version}' on every worker")


_LOG_LEVEL_PLUGIN = "xqdb-log-level"


def _log_level_plugin(name: str, level: int) -> Any:
    """A Dask worker plugin that sets the level of the logger ``name`` on every worker,
    those that join or replace a lost one later too, so its records are forwarded."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class LogLevel(WorkerPlugin):
        def setup(self, worker: Any) -> None:
            logging.getLogger(name).setLevel(level)

    return LogLevel()
