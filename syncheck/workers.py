"""Analyzing files in worker processes, each file under hard limits enforced from outside.

A file can make libclang crash (a 20,000-term expression overflows its stack), the solver
run away, or the parser allocate gigabytes. Each file is therefore analyzed in a worker
process: the parent kills a worker that runs past the per-file time limit, the kernel
stops one that grows past the memory limit (RLIMIT_AS, set in the worker), and a worker that
dies for any reason costs only the file it was analyzing: the parent reports one line for it
and starts a replacement. Workers are reused from file to file, so a run pays for starting
them once, not per file.

The time limit counts the worker's CPU time (read from /proc where there is one), so that a
busy machine does not stop a file that an idle one finishes: results do not depend on load.
A file that waits instead of computing is stopped after a wall-time backstop, a multiple of
the CPU limit.

Results come back as validated JSON (syncheck.results), never as pickles.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Callable, Iterable, Iterator

from syncheck.diagnostics import FileProblem
from syncheck.results import FileResult, ResultFormatError, dumps_result, loads_result

Analyze = Callable[[str, bytes], FileResult]


@dataclass(frozen=True)
class Limits:
    cpu_seconds: float | None = 120.0    # CPU time per file; None: no limit
    memory_mb: int | None = 2048         # address space of a worker; None: no limit

    @property
    def wall_seconds(self) -> float | None:
        """The wall-time backstop per file: for a file that waits instead of computing."""
        if not self.cpu_seconds:
            return None
        return max(WALL_BACKSTOP_FACTOR * self.cpu_seconds, self.cpu_seconds + 60.0)


# How much slower than its CPU time a file may run (a loaded machine) before the backstop.
WALL_BACKSTOP_FACTOR = 10.0


def memory_limit_message(limits: Limits) -> str:
    return f"analysis stopped: it exceeded the per-file memory limit ({limits.memory_mb} MiB)"


def time_limit_message(limits: Limits) -> str:
    return f"analysis stopped after {limits.cpu_seconds:g} s of CPU time (per-file time limit)"


def wall_backstop_message(limits: Limits) -> str:
    return (f"analysis stopped after {limits.wall_seconds:g} s of wall time without finishing "
            f"(the backstop for a file that waits instead of computing)")


def _cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) a process has used so far; None where /proc cannot say."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
    except (OSError, IndexError, ValueError):
        return None


try:
    _CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
except (AttributeError, ValueError, OSError):
    _CLOCK_TICKS = 100


def crash_message(exitcode: int | None, limits: Limits) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        cause = f"killed by {name}"
    else:
        cause = f"exit status {exitcode}"
    hint = f"; a libclang crash or the per-file memory limit ({limits.memory_mb} MiB)" \
        if limits.memory_mb else "; a libclang crash"
    return f"analysis crashed ({cause}{hint}); this file was not analyzed"


class _Worker:
    def __init__(self, context, analyze: Analyze, limits: Limits, between: Callable[[], None] | None = None):
        parent_end, child_end = context.Pipe(duplex=True)
        self.conn = parent_end
        forked = context.get_start_method() == "fork"  # else the parent is a fork server
        self.process = context.Process(target=_worker_main, daemon=True, args=(
            child_end, analyze, limits, os.getpid() if forked else None, between))
        self.process.start()
        child_end.close()
        self.task: tuple[str, float] | None = None  # (path, started at)
        self.cpu_at_start: float | None = None  # the worker's CPU time when the task began

    def cpu_used(self) -> float | None:
        """CPU seconds spent on the current task (None: not measurable here)."""
        now = _cpu_seconds(self.process.pid) if self.process.pid else None
        if now is None or self.cpu_at_start is None:
            return None
        return now - self.cpu_at_start

    def stop(self, kill: bool = False) -> None:
        if kill and self.process.is_alive():
            self.process.kill()
        elif self.task is None:
            try:  # other workers hold copies of this pipe, so closing it is no signal
                self.conn.send(None)
            except OSError:
                pass
        try:
            self.conn.close()
        except OSError:
            pass
        self.process.join(timeout=None if kill else 5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


class WorkerPool:
    """A fixed number of worker processes; each result is yielded as it arrives."""

    def __init__(self, size: int, analyze: Analyze, limits: Limits, start_method: str | None = None,
                 between: Callable[[], None] | None = None):
        """``start_method``: how workers start; the default "fork" is the cheapest, but only
        safe while no other thread holds a lock (e.g. a server thread reading stdin): use
        "forkserver" there, with a picklable ``analyze``. ``between``: what a worker does
        after sending each result, while it waits for the next file (picklable too)."""
        self.size = max(1, size)
        self.analyze = analyze
        self.between = between
        self.limits = limits
        if start_method is None:
            start_method = "fork" if os.name == "posix" else "spawn"
        self.context = multiprocessing.get_context(start_method)
        if start_method == "forkserver":
            self.context.set_forkserver_preload(["syncheck.engine"])
        self.workers: list[_Worker] = []

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, *exc) -> None:
        for worker in self.workers:
            worker.stop(kill=exc[0] is not None)
        self.workers = []

    def cancel(self) -> None:
        """Kill the workers that are analyzing a file (from another thread: run() then
        reports those files as crashed and starts replacements)."""
        for worker in list(self.workers):
            if worker.task is not None and isinstance(worker, _Worker) and worker.process.is_alive():
                worker.process.kill()

    def run(self, tasks: Iterable[tuple[str, bytes]]) -> Iterator[tuple[str, FileResult, bool]]:
        """(path, result, complete) for each task; complete is False when a limit or a crash
        cut the analysis short (such results are not worth caching)."""
        queue = deque(tasks)
        self.workers = [w for w in self.workers if isinstance(w, _Worker)]
        while len(self.workers) < min(self.size, len(queue)):
            self.workers.append(_Worker(self.context, self.analyze, self.limits, self.between))
        while True:
            for i, worker in enumerate(self.workers):
                while worker.task is None and queue:
                    path, source = queue.popleft()
                    if not worker.process.is_alive():
                        worker.stop()
                        worker = self.workers[i] = _Worker(self.context, self.analyze, self.limits, self.between)
                    try:
                        worker.cpu_at_start = _cpu_seconds(worker.process.pid)
                        worker.conn.send((path, source))
                        worker.task = (path, time.monotonic())
                    except OSError:  # died while idle: replace it and retry the file
                        queue.appendleft((path, source))
                        worker.stop(kill=True)
                        worker = self.workers[i] = _Worker(self.context, self.analyze, self.limits, self.between)
            self.workers = [w for w in self.workers if isinstance(w, _Worker)]
            busy = [w for w in self.workers if w.task is not None]
            if not busy:
                return
            timeout = self._next_check(busy)
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout)
            for i, worker in enumerate(self.workers):
                if worker.task is None:
                    continue
                path, started = worker.task
                outcome = self._collect(worker, ready, started)
                if outcome is None:
                    continue
                result, complete, replace = outcome
                worker.task = None
                if replace:
                    worker.stop(kill=True)
                    self.workers[i] = _Worker(self.context, self.analyze, self.limits, self.between) \
                        if queue else _Idle()
                yield path, result, complete

    def _collect(self, worker: _Worker, ready, started: float):
        """(result, complete, replace the worker), or None while the file is still running."""
        path = worker.task[0]
        if worker.conn in ready or worker.process.sentinel in ready:
            try:
                has_data = worker.conn.poll()
            except OSError:
                has_data = False
            if has_data:
                try:
                    data = worker.conn.recv_bytes()
                except (EOFError, OSError):
                    data = None
                if data is not None:
                    try:
                        message = loads_result(data)
                    except ResultFormatError as e:
                        return _problem(path, f"analysis returned a malformed result ({e})"), False, True
                    retire = any(p.message == memory_limit_message(self.limits) for p in message.problems)
                    return message, not retire, retire
            if not worker.process.is_alive():
                worker.process.join()
                return _problem(path, crash_message(worker.process.exitcode, self.limits)), False, True
            if not has_data:
                return None
        if self.limits.cpu_seconds:
            used = worker.cpu_used()
            elapsed = time.monotonic() - started
            if used is None and elapsed >= self.limits.cpu_seconds:  # no /proc: wall time
                return _problem(path, time_limit_message(self.limits)), False, True
            if used is not None and used >= self.limits.cpu_seconds:
                return _problem(path, time_limit_message(self.limits)), False, True
            if elapsed >= self.limits.wall_seconds:
                return _problem(path, wall_backstop_message(self.limits)), False, True
        return None

    def _next_check(self, busy: list[_Worker]) -> float | None:
        """How long to wait for results before looking at the limits again: a worker cannot
        use more CPU time than the wall time that passes."""
        if not self.limits.cpu_seconds:
            return None
        now = time.monotonic()
        waits = []
        for worker in busy:
            elapsed = now - worker.task[1]
            used = worker.cpu_used()
            left = self.limits.cpu_seconds - (used if used is not None else elapsed)
            waits += [left, self.limits.wall_seconds - elapsed]
        return max(0.05, min(waits))


class _Idle:
    """A slot whose worker was stopped and is not needed again."""
    task = None


def _problem(path: str, message: str) -> FileResult:
    return FileResult(problems=[FileProblem(path, message)])


def _worker_main(conn, analyze: Analyze, limits: Limits, parent_pid: int | None = None,
                 between: Callable[[], None] | None = None) -> None:
    """The loop of a worker process: receive (path, source), send the result as JSON (then
    run ``between``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _die_with_parent(parent_pid)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # libclang and LLVM print crash reports and stack dumps on stderr; the parent reports
    # a crash in one line instead.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.close(devnull)
    if limits.memory_mb:
        _limit_address_space(limits.memory_mb * 1024 * 1024)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        path, source = task
        try:
            payload = dumps_result(analyze(path, source))
            retire = False
        except MemoryError:
            payload, retire = None, True
        except BaseException as e:  # noqa: BLE001 - the worker must always answer
            payload = dumps_result(_problem(path, f"internal error while analyzing "
                                                  f"({type(e).__name__}); please report it"))
            retire = False
        if payload is None:
            payload = dumps_result(_problem(path, memory_limit_message(limits)))
        try:
            conn.send_bytes(payload.encode("ascii"))
        except (OSError, ValueError):
            return
        if retire:
            return  # a process that ran out of memory is not trusted with another file
        if between is not None:
            try:
                between()
            except MemoryError:
                return


def _die_with_parent(parent_pid: int | None) -> None:
    """On Linux, have the kernel kill this worker when the parent dies (even by SIGKILL),
    so no worker outlives the run."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if parent_pid is not None and os.getppid() != parent_pid:  # it died before the call
        os._exit(0)


def _limit_address_space(limit: int) -> None:
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, ValueError, OSError):
        pass  # no rlimits here (e.g. Windows): the wall-time limit still applies
