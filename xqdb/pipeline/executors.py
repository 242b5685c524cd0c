"""Executors: run a function over work items in worker processes, results in input order.

Two executors share one interface (:class:`Executor`): the local process pool, the
default, and a Dask distributed cluster, for work that outgrows one machine. Both take the
same work items and the same worker functions, and both hand the results back in input
order, so the one writer that stores them assigns the same ids either way.

The local pool forks its workers (see :class:`_Pool`): they start at once with what the
parent has loaded, and each talks to the parent through a pipe of its own, which carries
its log records to the parent's handlers too. Forking a process that already runs threads
can deadlock the child, so the pool must be created before DuckDB, a progress bar or any
other thread starts, and one pool serves a whole run. Only a worker that replaces a dead
one is forked later; it runs nothing but Python code of its own and never touches DuckDB.

>>> with process_pool(2) as pool:
...     list(ordered_map(pool, abs, [-3, 1, -2], window=2))
[3, 1, 2]
>>> with open_executor(jobs=2) as executor:
...     list(executor.map(abs, [-3, 1, -2])), executor.retried
([3, 1, 2], 0)
"""

from __future__ import annotations

import gc
import importlib.metadata
import itertools
import logging
import multiprocessing
import os
import pickle
import queue
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
from multiprocessing.connection import Connection, wait
from multiprocessing.reduction import ForkingPickler
from typing import Any, TypeVar

from ..errors import BadArgumentError, ClusterError

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def idle_cores() -> int:
    """The cores that other work leaves idle: :func:`default_jobs` less the load average of
    the last minute, and at least one.

    Where the cores are taken, workers only add the cost of handing their rows to the
    writer: on 2 cores at load 10, ccpd-dev.zip imported in 27-32 s in one process and
    in 35-44 s with two workers, whether they ran at the writer's priority or below it.
    """
    try:
        busy = round(os.getloadavg()[0])
    except OSError:  # no load figure here: count every core as idle
        busy = 0
    return max(1, default_jobs() - busy)


#: How much lower the workers' scheduling priority is than the parent's. The parent is the
#: one writer every result must pass through: when it has work it should get a core at
#: once rather than share it with a worker, or the workers end up waiting for it.
WORKER_NICENESS = 5
#: A worker's collector thresholds (Python's defaults are 700, 10, 10): a worker allocates
#: millions of short-lived objects per unit, almost none in cycles, and each collection
#: walks every object still alive. Reading, replaying and staging ccpd-dev.zip in one
#: process, 4 runs alternating: 7.11-7.37 s of CPU against 7.33-7.68 s at the defaults.
WORKER_GC_THRESHOLDS = (20_000, 20, 20)


#: Seconds between a waiting parent's looks at its workers, and a worker's at its parent.
WATCH_SECONDS = 0.5
#: Seconds a cluster's task waits for a value the parent published (see :func:`published`).
PUBLISHED_WAIT = 5.0

def _init_worker() -> None:
    # Ctrl-C goes to the whole process group; the parent decides what happens, so a
    # worker must not die with a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the command's handler: a worker just dies
    try:
        os.nice(WORKER_NICENESS)
    except OSError:  # not allowed here: the workers simply keep the parent's priority
        pass
    # What the fork copied from the parent lives as long as the worker: frozen, no
    # collection walks it again.
    gc.freeze()
    gc.set_threshold(*WORKER_GC_THRESHOLDS)
    # A parent killed outright (kill -9) cannot stop its workers: each stops itself once
    # its parent is gone, rather than work on for nobody and die on a broken pipe.
    parent = os.getppid()
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_SECONDS)
    os._exit(0)


def _serve(conn: Connection, inherited: list[Connection]) -> None:
    """A worker's life: run the tasks the parent sends on ``conn``, answer each in turn.

    Answers and log records leave through one sender thread, so the work goes on while
    the parent, busy writing, has not read the last answer yet. A parent that is gone
    (its end of the pipe closed) ends the worker at once and quietly: nobody is left to
    tell.
    """
    for other in inherited:  # the parent's ends, copied by the fork
        other.close()
    _init_worker()
    outbox: queue.SimpleQueue[tuple[str, Any] | None] = queue.SimpleQueue()
    sender = threading.Thread(target=_send_all, args=(conn, outbox), daemon=True)
    sender.start()
    logging.getLogger().handlers = [_RelayHandler(outbox)]
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        if task is None:
            break
        fn, item = task
        try:
            outbox.put(("ok", fn(item)))
        except Exception as exc:
            outbox.put(("error", exc))
    outbox.put(None)
    sender.join()


def _send_all(conn: Connection, outbox: queue.SimpleQueue[tuple[str, Any] | None]) -> None:
    while (message := outbox.get()) is not None:
        try:
            data = ForkingPickler.dumps(message)
        except Exception as exc:
            if message[0] == "log":
                continue
            data = ForkingPickler.dumps(
                ("error", RuntimeError(f"a worker's answer cannot be sent: {exc!r}")))
        try:
            conn.send_bytes(data)
        except OSError:
            os._exit(0)


class _RelayHandler(logging.Handler):
    """A worker's one log handler: records go to the parent, whose handlers write them."""

    def __init__(self, outbox: queue.SimpleQueue[tuple[str, Any] | None]) -> None:
        super().__init__()
        self.outbox = outbox

    def emit(self, record: logging.LogRecord) -> None:
        try:
            # Made plain text here: arguments and tracebacks may not survive pickling.
            record.msg, record.args = record.getMessage(), None
            if record.exc_info:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
                record.exc_info = None
            self.outbox.put(("log", record))
        except Exception:
            self.handleError(record)


@contextmanager
def process_pool(jobs: int) -> Iterator[_Pool | None]:
    """A pool of ``jobs`` forked workers whose logging reaches this process's handlers.

    ``jobs <= 1`` yields ``None``: the work then runs in this process (see
    :func:`ordered_map`), which keeps tracebacks and profiles simple.
    """
    if jobs <= 1:
        yield None
        return
    pool = _Pool(jobs, multiprocessing.get_context("fork"))
    try:
        yield pool
        pool.close()
    except BaseException:
        pool.terminate()
        raise


def ordered_map(pool: _Pool | None, fn: Callable[[T], R], items: Iterable[T], window: int,
                lost: Callable[[T, str], R] | None = None) -> Iterator[R]:
    """``map(fn, items)`` on ``pool``, in input order, with at most ``window`` items in flight.

    The window bounds memory: results that finish early wait for their turn, and no more
    than ``window`` of them can pile up however long the input is.

    A worker that dies (killed, out of memory) takes its task with it: the dead worker is
    noticed, its task run once more on the worker that replaces it, and if that one dies
    too, ``lost(item, why)`` stands for its result (without ``lost``,
    :class:`TaskLostError` is raised).
    """
    if pool is None:
        yield from map(fn, items)
        return
    yield from pool.map(fn, items, window, lost)


#: Times a task may lose its worker: once it is run again, twice it is given up.
TASK_RUNS = 2


class _Worker:
    """One forked worker and the parent's end of its own pipe."""

    def __init__(self, process: Any, conn: Connection) -> None:
        self.process = process
        self.conn = conn
        self.tasks: deque[_Task] = deque()
        """The tasks sent to it whose answers have not come back, in the order sent (the
        order it runs them)."""


class _Task:
    """One item of a map, and how it ended: ``answer`` is ``(kind, value)`` once known."""

    __slots__ = ("item", "answer", "losses")

    def __init__(self, item: Any) -> None:
        self.item = item
        self.answer: tuple[str, Any] | None = None
        self.losses = 0


#: Tasks sent ahead to a worker: the one it runs and the next, so it need not wait for
#: the parent (busy writing) before it starts another.
TASKS_PER_WORKER = 2


class _Pool:
    """Forked workers, each talking to this process through a pipe of its own.

    Nothing is shared between the workers: no queue, no lock. A ``multiprocessing.Pool``
    worker killed while it waits for work dies holding the lock of the one queue of
    tasks, and one killed while it sends a result may hold the result queue's lock or
    leave half a message in the shared pipe; the pool, and even its ``terminate()``,
    then wait forever. Here a dead worker breaks only its own pipe: the parent sees its
    sentinel or the pipe's end, starts a new worker and sends the lost tasks again.
    """

    def __init__(self, jobs: int, context: Any) -> None:
        self.context = context
        self.started = 0
        self.workers: list[_Worker] = []
        for _ in range(jobs):
            self.workers.append(self._start())

    def _start(self) -> _Worker:
        ours, theirs = self.context.Pipe(duplex=True)
        self.started += 1
        process = self.context.Process(
            target=_serve, args=(theirs, [ours] + [w.conn for w in self.workers]),
            name=f"ForkPoolWorker-{self.started}", daemon=True)
        process.start()
        theirs.close()
        return _Worker(process, ours)

    def map(self, fn: Callable[[T], R], items: Iterable[T], window: int,
            lost: Callable[[T, str], R] | None) -> Iterator[R]:
        pending: deque[_Task] = deque()  # in input order
        waiting: deque[_Task] = deque()  # not yet sent to a worker
        for item in items:
            task = _Task(item)
            pending.append(task)
            waiting.append(task)
            self._dispatch(fn, waiting)
            if len(pending) >= max(1, window):
                yield self._outcome(pending.popleft(), fn, waiting, lost)
        while pending:
            yield self._outcome(pending.popleft(), fn, waiting, lost)

    def _outcome(self, task: _Task, fn: Callable[[Any], Any], waiting: deque[_Task],
                 lost: Callable[[Any, str], Any] | None) -> Any:
        while task.answer is None:
            self._listen(fn, waiting)
        kind, value = task.answer
        if kind == "ok":
            return value
        if kind == "error":
            raise value
        if lost is None:
            raise TaskLostError(f"a task was lost: {value}",
                                "what was stored stays: run the command again")
        return lost(task.item, value)

    def _dispatch(self, fn: Callable[[Any], Any], waiting: deque[_Task]) -> None:
        """Send waiting tasks to the least busy workers that can take one."""
        while waiting:
            worker = min(self.workers, key=lambda w: len(w.tasks))
            if len(worker.tasks) >= TASKS_PER_WORKER:
                return
            task = waiting.popleft()
            worker.tasks.append(task)
            try:
                worker.conn.send((fn, task.item))
            except OSError:  # it died: its sentinel says so at the next listen
                return

    def _listen(self, fn: Callable[[Any], Any], waiting: deque[_Task]) -> None:
        """Wait until a worker answers or dies, and take what it says."""
        by_handle: dict[Any, _Worker] = {}
        for worker in self.workers:
            by_handle[worker.conn] = by_handle[worker.process.sentinel] = worker
        ready = {by_handle[h] for h in wait(list(by_handle))}
        for worker in self.workers[:]:
            if worker in ready and not self._receive(worker):
                self._replace(worker, waiting)
        self._dispatch(fn, waiting)

    def _receive(self, worker: _Worker) -> bool:
        """Take every message ``worker`` has sent; whether it is still alive."""
        try:
            while worker.conn.poll():
                data = worker.conn.recv_bytes()
                try:
                    kind, value = pickle.loads(data)
                except Exception as exc:  # an answer that cannot be rebuilt here
                    kind, value = "error", RuntimeError(f"a worker's answer is unreadable: {exc}")
                if kind == "log":
                    logging.getLogger(value.name).handle(value)
                else:
                    worker.tasks.popleft().answer = (kind, value)
        except (EOFError, OSError):  # its end of the pipe is closed: it died
            return False
        return worker.process.exitcode is None

    def _replace(self, worker: _Worker, waiting: deque[_Task]) -> None:
        """``worker`` died: charge the task it was running, start another worker, and
        put what it held back in line, first."""
        worker.process.join(WATCH_SECONDS)
        if worker.process.exitcode is None:  # its pipe broke, yet it lives: stop it
            worker.process.kill()
            worker.process.join()
        worker.conn.close()
        self.workers.remove(worker)
        # A worker takes its tasks in the order sent, so the first without an answer is
        # the one it was running when it died.
        held = list(worker.tasks)
        if held:
            running = held[0]
            running.losses += 1
            log.warning("a worker (pid %s) died while running a task: %s",
                        worker.process.pid,
                        "running it again" if running.losses < TASK_RUNS else "giving it up")
            if running.losses >= TASK_RUNS:
                held.pop(0)
                running.answer = ("lost", f"the worker running it died, {TASK_RUNS} times "
                                          "(killed, or out of memory?)")
        waiting.extendleft(reversed(held))
        self.workers.append(self._start())

    def close(self) -> None:
        """Let every worker finish what it was sent, then stop."""
        for worker in self.workers:
            try:
                worker.conn.send(None)
            except OSError:
                pass
        for worker in self.workers:
            worker.process.join()
            worker.conn.close()

    def terminate(self) -> None:
        """Stop every worker now.

        SIGKILL, not SIGTERM: a worker holds nothing to clean up, and a SIGTERM that
        arrives while a new worker still has its parent's handler, just as its set-up
        replaces it, is lost (Python runs a handler after the signal, and finds none) and
        the parent would wait for that worker forever.
        """
        for worker in self.workers:
            if worker.process.exitcode is None:
                worker.process.kill()
        for worker in self.workers:
            worker.process.join()
            worker.conn.close()


# --- executors: the local pool and a Dask cluster behind one interface -----------------

#: Seconds to wait for the scheduler to answer, and for a worker to join it (at the
#: start, or once every one has left); the environment variable ``XQDB_WORKER_WAIT``
#: sets the second.
CONNECT_TIMEOUT = 10.0
WORKER_WAIT = 60.0


def worker_wait_seconds() -> float:
    """Seconds a run on a cluster waits for a worker: ``XQDB_WORKER_WAIT``, else
    :data:`WORKER_WAIT`.

    >>> worker_wait_seconds()
    60.0
    """
    text = os.environ.get("XQDB_WORKER_WAIT", "").strip()
    if not text:
        return WORKER_WAIT
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        raise BadArgumentError(f"XQDB_WORKER_WAIT={text!r} is not a number of seconds",
                               "give one like 60 (the default), or unset it")
    return seconds
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

    def publish(self, name: str, value: Any) -> None:
        """Make ``value`` what :func:`published` gives the tasks that start from now on
        under ``name`` (``None``: forget it). Only a cluster's workers need this: local
        ones share memory with this process, and here it does nothing."""


class LocalExecutor(Executor):
    """The local process pool (see :func:`process_pool`); ``pool=None`` runs the work in
    this process."""

    def __init__(self, pool: _Pool | None, jobs: int) -> None:
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

    def publish(self, name: str, value: Any) -> None:
        from distributed import Variable

        # What is published only saves work: a scheduler that cannot take it fails the
        # run where a result is awaited, with the error that says what happened.
        try:
            variable = Variable(name, client=self.client)
            if value is None:
                variable.delete()
            else:
                variable.set(value)
        except Exception as exc:  # noqa: BLE001
            log.debug("could not publish %s: %s", name, exc)

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


def published(name: str) -> Any:
    """In a task on a cluster's worker, the value last published under ``name`` (see
    :meth:`Executor.publish`); ``None`` elsewhere, or when the scheduler has none or does
    not answer within :data:`PUBLISHED_WAIT` seconds (the task goes on without it)."""
    try:
        from distributed import Variable, get_worker
        client = get_worker().client  # outside a task: ValueError
        return Variable(name, client=client).get(timeout=PUBLISHED_WAIT)
    except Exception:  # noqa: BLE001 - a value to do without, never a reason to fail a task
        return None


@contextmanager
def open_executor(jobs: int | None = None, scheduler: str | None = None,
                  worker_wait: float | None = None, connect_timeout: float = CONNECT_TIMEOUT
                  ) -> Iterator[Executor]:
    """The local pool of ``jobs`` processes (default: every core), or the Dask cluster
    whose scheduler is at ``scheduler`` (``tcp://HOST:8786``), for one run.

    A cluster is checked before any work is sent: the scheduler must answer within
    ``connect_timeout`` seconds, a worker must join within ``worker_wait`` seconds
    (default :func:`worker_wait_seconds`), and every worker must have this xqdb.
    Raises :class:`ClusterUnavailableError` or :class:`WorkerSetupError` otherwise.
    Like :func:`process_pool`, open it before DuckDB starts its threads.
    """
    if scheduler is None:
        jobs = jobs or default_jobs()
        with process_pool(jobs) as pool:
            yield LocalExecutor(pool, jobs)
        return
    wait = worker_wait_seconds() if worker_wait is None else worker_wait
    with _dask_client(scheduler, wait, connect_timeout) as client:
        yield DaskExecutor(client, scheduler, wait)


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
