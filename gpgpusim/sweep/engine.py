"""Running a sweep: which runs are left, where they run, progress, results.

Engines (the sweep does not schedule anything itself):

* default: a Dask ``LocalCluster`` with one single-threaded worker process per core
  (``--jobs N`` for another count); the scheduler lives in this process;
* ``--cluster tcp://host:8786``: an existing Dask scheduler (its workers need this package and
  the sweep's files at the same paths: a shared file system);
* ``--slurm N`` / ``--pbs N``: dask-jobqueue submits N batch jobs, each one Dask worker, with the
  resources of the sweep file's ``[cluster]`` settings (see ``docs/SWEEP.md``);
* ``--serial``: one run after the other in this process, no engine (the baseline).

A run whose result says ``ok`` with the same content hash (spec, binary, inputs, config files,
simulator version) is skipped.  A run whose process was killed from outside is resubmitted up
to ``retries`` times; a run whose worker died is run again by the Dask scheduler, up to
``retries`` times (its ``allowed-failures``; with ``--cluster`` the scheduler's own setting).
Ctrl-C cancels what is queued, stops what is running and keeps everything that finished.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from gpgpusim.appenv import check_binary, check_config, run_env
from gpgpusim.errors import CudaError

from . import table
from .batch import batch_cluster
from .execute import CRASHED, OK, TRANSIENT, execute_run, read_result, record_lost
from .spec import RunSpec, Sweep, SweepError, config_files, run_hash, simulator_version


@dataclass
class Outcome:
    total: int = 0
    skipped: int = 0
    results: dict[str, dict[str, Any]] = field(default_factory=dict)   # run_id -> result record
    interrupted: bool = False
    wall_s: float = 0.0
    tables: list[Path] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for r in self.results.values() if r.get("status") == status)

    @property
    def not_ok(self) -> list[dict[str, Any]]:
        return [r for r in self.results.values() if r.get("status") != OK]


def task_of(sweep: Sweep, spec: RunSpec, hash_: str) -> dict[str, Any]:
    """The picklable description of a run handed to :func:`execute_run`."""

    p = spec.program
    return {
        "run_id": spec.run_id, "run_dir": str(sweep.output / "runs" / spec.run_id), "hash": hash_,
        "keys": dict(spec.keys), "binary": str(p.binary), "args": list(p.args),
        "inputs": [str(f) for f in p.inputs], "cwd": str(p.cwd) if p.cwd else None,
        "gpu": spec.config.gpu, "config_file": str(spec.config.file) if spec.config.file else None,
        "config_files": [str(f) for f in config_files(spec.config)],
        "functional": spec.mode == "functional", "sets": spec.sets, "timeout_s": sweep.timeout_s,
    }


def build_programs(sweep: Sweep, specs: list[RunSpec], log: Callable[[str], None]) -> None:
    """Run each needed program's ``build`` command when its binary is missing (in the sweep
    file's folder, output in ``<output>/build.log``); a binary still missing is an error."""
    import subprocess

    needed = {s.program.name: s.program for s in specs}
    for name, prog in needed.items():
        if prog.binary.is_file() or not prog.build:
            continue
        log(f"building {name}: {prog.build}")
        sweep.output.mkdir(parents=True, exist_ok=True)
        with open(sweep.output / "build.log", "ab") as f:
            rc = subprocess.run(prog.build, shell=True, cwd=sweep.path.resolve().parent, stdout=f,
                                stderr=subprocess.STDOUT, check=False).returncode
        if rc != 0:
            raise SweepError(f"{sweep.where('programs', name, 'build')}: the build command failed "
                             f"(exit status {rc}; see {sweep.output / 'build.log'})")

    for name, prog in needed.items():
        if not prog.binary.is_file():
            hint = "" if prog.build else " (build it first, or give the program a `build` command)"
            raise SweepError(f"{sweep.where('programs', name, 'binary')}: {prog.binary} does not exist{hint}")
        problem = check_binary(str(prog.binary))
        if problem:
            raise SweepError(f"{sweep.where('programs', name, 'binary')}: {problem}")


def check_configs(sweep: Sweep, specs: list[RunSpec]) -> None:
    """Load every distinct (config, options, mode) once, as the runs will, so that a bad option
    or value stops the sweep before anything runs, with the key and line it came from."""

    seen = set()
    for s in specs:
        key = (s.config.name, s.options, s.mode)
        if key in seen:
            continue
        seen.add(key)
        env = run_env(s.config.gpu, str(s.config.file) if s.config.file else None, s.mode == "functional",
                      s.sets)
        try:
            check_config(env)
        except CudaError as exc:
            where = sweep.where("configs", s.config.name)
            for opt, _ in s.options:
                if opt.lstrip("-") in exc.message:
                    variant = dict(s.keys).get("variant")
                    where = sweep.where("vary", opt) if opt in sweep.vary else sweep.where("variants", variant or "", opt)
                    break
            raise SweepError(f"{where}: {exc.message}") from None


class Progress:
    """One status line (rewritten in place on a terminal, a line per finished run otherwise):
    done/total, failed, running, ETA from the mean time per finished run."""

    def __init__(self, total: int, skipped: int, stream: Any = None, enabled: bool = True) -> None:
        self.total, self.skipped = total, skipped
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = enabled
        self.done = self.bad = 0
        self.start = time.monotonic()
        self._last = 0.0

    def line(self, running: int) -> str:
        todo = self.total - self.skipped
        frac = (self.done / todo) if todo else 1.0
        width = 24
        bar = "#" * int(frac * width) + "." * (width - int(frac * width))
        el = time.monotonic() - self.start
        eta = el / self.done * (todo - self.done) if self.done else None
        eta_s = "--:--" if eta is None else time.strftime("%H:%M:%S", time.gmtime(eta))
        return (f"[{bar}] {self.done}/{todo} run, {self.bad} not ok, {running} queued or running, "
                f"{self.skipped} skipped (done before), elapsed {time.strftime('%H:%M:%S', time.gmtime(el))}, "
                f"ETA {eta_s}")

    def update(self, running: int, finished: dict[str, Any] | None = None) -> None:
        if finished is not None:
            self.done += 1
            self.bad += finished.get("status") != OK
        if not self.enabled:
            return
        if self.tty:
            now = time.monotonic()
            if finished is None and now - self._last < 0.5:
                return
            self._last = now
            self.stream.write("\r" + self.line(running) + "\033[K")
            self.stream.flush()
        elif finished is not None:
            st = finished.get("status")
            why = f" ({finished.get('reason')})" if st != OK and finished.get("reason") else ""
            self.stream.write(f"[{self.done}/{self.total - self.skipped}] {finished.get('run_id')}: {st}{why}"
                              f" {finished.get('wall_s', 0):.1f} s\n")
            self.stream.flush()

    def ticking(self, running: Callable[[], int]) -> Callable[[], None]:
        """Redraw the line every second (elapsed, ETA) until the returned function is called."""
        import threading

        stop = threading.Event()

        def loop() -> None:
            while not stop.wait(1.0):
                self.update(running())

        if self.enabled and self.tty:
            threading.Thread(target=loop, name="sweep-progress", daemon=True).start()
        return stop.set

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _client(jobs: int | None, cluster: str | None, batch: tuple[str, int] | None, sweep: Sweep,
            retries: int, n_runs: int) -> tuple[Any, Any]:
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise SweepError("the sweep engine needs Dask: python3 -m pip install 'gpgpusim[sweep]' "
                         "(or dask distributed), or run with --serial") from None
    import logging

    dask.config.set({"distributed.scheduler.allowed-failures": retries,
                     "distributed.worker.daemon": False,
                     "distributed.admin.tick.limit": "1h"})
    if cluster:
        try:
            return Client(cluster, timeout="30s"), None
        except (OSError, TimeoutError) as exc:
            raise SweepError(f"cannot reach the Dask scheduler at {cluster}: {exc}") from None
    if batch:
        kind, n = batch
        bc = batch_cluster(kind, sweep)
        bc.scale(jobs=n)
        return Client(bc), bc
    n = max(1, min(jobs or os.cpu_count() or 1, n_runs))
    # The workers inherit SIGINT ignored: a terminal's Ctrl-C reaches the whole process group,
    # and it is this process that stops the sweep (closing the cluster ends the workers).
    import threading

    main = threading.current_thread() is threading.main_thread()
    old = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        lc = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                          memory_limit=0, silence_logs=logging.ERROR)
    finally:
        if main:
            signal.signal(signal.SIGINT, old)
    from distributed.diagnostics.plugin import WorkerPlugin

    class IgnoreSigint(WorkerPlugin):
        name = "gpgpusim-ignore-sigint"

        def setup(self, worker: Any) -> None:
            _ignore_sigint()

    client = Client(lc)
    client.register_plugin(IgnoreSigint())      # workers restarted later (after a crash) too
    return client, lc


def _ignore_sigint() -> None:
    """In a Dask worker: ignore SIGINT (see :func:`_client`)."""
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_sweep(sweep: Sweep, *, subset: str | None = None, jobs: int | None = None, serial: bool = False,
              cluster: str | None = None, batch: tuple[str, int] | None = None, force: bool = False,
              progress: bool = True, log: Callable[[str], None] | None = None) -> Outcome:
    """Run what is left of the sweep and write its tables; see the module docstring."""
    say = log or (lambda m: print(f"gpgpusim sweep: {m}", file=sys.stderr, flush=True))
    t0 = time.monotonic()
    specs = sweep.runs(subset)
    build_programs(sweep, specs, say)
    check_configs(sweep, specs)
    sweep.output.mkdir(parents=True, exist_ok=True)
    lock = _lock(sweep.output)
    try:
        return _run_locked(sweep, specs, serial, jobs, cluster, batch, force, progress, say, t0)
    finally:
        lock.close()


def _lock(out_dir: Path) -> Any:
    """An exclusive lock on ``<output>/.lock`` for the sweep's duration: two sweeps writing the
    same run directories would overwrite each other's runs."""
    import fcntl

    f = open(out_dir / ".lock", "w")  # noqa: SIM115 - held until the sweep ends
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise SweepError(f"{out_dir}: another `gpgpusim sweep run` is using this results folder") from None
    return f


def _run_locked(sweep: Sweep, specs: list[RunSpec], serial: bool, jobs: int | None, cluster: str | None,
                batch: tuple[str, int] | None, force: bool, progress: bool, say: Callable[[str], None],
                t0: float) -> Outcome:
    version = simulator_version()
    keys = list(dict(specs[0].keys)) if specs else []
    _write_manifest(sweep, specs, keys, version)
    out = Outcome(total=len(specs))
    todo: list[dict[str, Any]] = []
    for s in specs:
        h = run_hash(s, version)
        run_dir = sweep.output / "runs" / s.run_id
        prev = read_result(run_dir)
        if not force and prev and prev.get("status") == OK and prev.get("hash") == h and (run_dir / "stats.json").is_file():
            out.skipped += 1
            out.results[s.run_id] = prev
            continue
        if prev is not None:                   # a new attempt starts from one
            (run_dir / "attempts").unlink(missing_ok=True)
        todo.append(task_of(sweep, s, h))
    bar = Progress(out.total, out.skipped, enabled=progress)
    if todo:
        where = ("serially" if serial else f"on the Dask cluster at {cluster}" if cluster
                 else f"on {batch[1]} {batch[0]} jobs" if batch
                 else f"on {max(1, min(jobs or os.cpu_count() or 1, len(todo)))} local workers")
        say(f"{len(todo)} of {out.total} runs to do ({out.skipped} done before), {where}; results in {sweep.output}")
    else:
        say(f"all {out.total} runs done before; results in {sweep.output}")
    try:
        if serial:
            _run_serial(todo, sweep.retries, out, bar)
        elif todo:
            _run_dask(todo, sweep.retries, out, bar, jobs, cluster, batch, sweep)
    except KeyboardInterrupt:
        out.interrupted = True
    finally:
        bar.close()
        krows, rrows = table.collect([(dict(s.keys), s.run_id, sweep.output / "runs" / s.run_id) for s in specs])
        out.tables = table.write_tables(sweep.output, keys, krows, rrows)
        out.wall_s = time.monotonic() - t0
    return out


def _run_serial(todo: list[dict[str, Any]], retries: int, out: Outcome, bar: Progress) -> None:
    for task in todo:
        for attempt in range(retries + 1):
            bar.update(1)
            res = execute_run(task)
            if res["status"] not in TRANSIENT or attempt == retries:
                break
        out.results[task["run_id"]] = res
        bar.update(0, res)


def _run_dask(todo: list[dict[str, Any]], retries: int, out: Outcome, bar: Progress, jobs: int | None,
              cluster: str | None, batch: tuple[str, int] | None, sweep: Sweep) -> None:
    from distributed import as_completed

    client, owned = _client(jobs, cluster, batch, sweep, retries, len(todo))
    futures: dict[Any, dict[str, Any]] = {}
    stop_ticking: Callable[[], None] = lambda: None  # noqa: E731
    resubmits: dict[str, int] = {}
    try:
        def submit(task: dict[str, Any]) -> Any:
            n = resubmits.get(task["run_id"], 0)
            fut = client.submit(execute_run, task, key=f"run-{task['run_id']}-{task['hash'][:8]}-{n}", pure=False)
            futures[fut] = task
            return fut

        # Results come with the futures, gathered on Dask's own thread: waiting here is a condition
        # wait that Ctrl-C interrupts cleanly, whereas Future.result() blocks in distributed's
        # sync(), whose cancel callback fails with a logged NameError when interrupted early.
        ac = as_completed([submit(t) for t in todo], with_results=True, raise_errors=False)
        running = len(todo)
        stop_ticking = bar.ticking(lambda: running)
        for fut, res in ac:
            task = futures.pop(fut)
            run_dir = Path(task["run_dir"])
            if fut.status != "finished":       # KilledWorker and the like: the run is lost
                exc = res[1] if isinstance(res, tuple) else res
                res = record_lost(run_dir, task["run_id"], task["hash"],
                                  f"worker lost ({type(exc).__name__}: {str(exc)[:200]})")
            # a lost worker's task was already rerun by the scheduler (allowed-failures = retries)
            if res.get("status") == CRASHED and resubmits.get(task["run_id"], 0) < retries:
                resubmits[task["run_id"]] = resubmits.get(task["run_id"], 0) + 1
                ac.add(submit(task))
                continue
            running -= 1
            out.results[task["run_id"]] = res
            bar.update(running, res)
    except KeyboardInterrupt:
        _quiet_dask()
        with contextlib.suppress(Exception):
            client.cancel(list(futures))
        raise
    finally:
        stop_ticking()
        _close(client, owned)


def _quiet_dask() -> None:
    """Silence Dask's and Tornado's loggers: shutting a cluster down mid-run logs callbacks that
    fail on futures it is tearing down, none of which concern the user."""
    import logging

    for name in ("distributed", "tornado.application", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _close(client: Any, owned: Any) -> None:
    _quiet_dask()
    with contextlib.suppress(Exception):
        client.close(timeout=10)
    if owned is not None:
        with contextlib.suppress(Exception):
            owned.close(timeout=10)


def _write_manifest(sweep: Sweep, specs: list[RunSpec], keys: list[str], version: str) -> None:
    doc = {"name": sweep.name, "sweep_file": str(sweep.path.resolve()), "keys": keys, "simulator": version,
           "runs": [{"run_id": s.run_id, **dict(s.keys)} for s in specs]}
    tmp = sweep.output / "sweep.json.tmp"
    tmp.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    tmp.replace(sweep.output / "sweep.json")


__all__ = ["Outcome", "run_sweep"]
