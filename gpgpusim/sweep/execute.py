"""One run of a sweep, executed where a worker is (a Dask worker, or the sweep's own process).

:func:`execute_run` takes a plain dict (picklable, so any engine can ship it) and runs the
application exactly as ``gpgpusim run`` would (same environment: :func:`gpgpusim.appenv.run_env`)
in the run's own directory::

    <run dir>/spec.json     what was asked (keys, options, binary, content hash)
    <run dir>/config/       copies of the config files the run read
    <run dir>/run.log       the application's stdout and stderr (the simulator's report)
    <run dir>/stats.json    the statistics (``-o``)
    <run dir>/result.json   status, reason, exit code, wall time, attempts, host

The application runs in a session of its own and dies with the worker thread that started it
(``PR_SET_PDEATHSIG``), so a killed worker leaves no simulation behind.  A run over its time
limit gets SIGTERM (the simulator then writes its statistics, marked interrupted) and, 10 s
later, SIGKILL.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from gpgpusim.appenv import run_env

#: statuses of a run; only "ok" counts as finished
OK, FAILED, TIMEOUT, CRASHED, LOST, ERROR = "ok", "failed", "timeout", "crashed", "lost", "error"
#: statuses retried automatically (the process was killed from outside or its worker died)
TRANSIENT = (CRASHED, LOST)
_TERM_GRACE_S = 10.0


def _write_json(path: Path, doc: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _die_with_parent() -> None:
    """preexec_fn: SIGKILL when the thread that started us ends (e.g. its worker is killed)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)          # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


def _last_line(log: Path) -> str:
    try:
        with open(log, "rb") as f:
            f.seek(max(0, f.seek(0, 2) - 4096))
            lines = [ln.strip() for ln in f.read().decode("utf-8", "replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return lines[-1][:300] if lines else ""


def execute_run(task: dict[str, Any]) -> dict[str, Any]:
    """Run one simulation described by ``task`` and return its result record (also written to
    ``result.json``).  Never raises for a failing application: the record says what happened.

    ``task`` keys: run_id, run_dir, hash, keys, binary, args, inputs, cwd, gpu, config_file,
    config_files, functional, sets, timeout_s.
    """

    run_dir = Path(task["run_dir"])
    run_dir.mkdir(parents=True, exist_ok=True)
    attempts_file = run_dir / "attempts"
    try:
        attempts = int(attempts_file.read_text()) + 1
    except (OSError, ValueError):
        attempts = 1
    attempts_file.write_text(str(attempts))
    result: dict[str, Any] = {"run_id": task["run_id"], "hash": task["hash"], "attempts": attempts,
                              "host": socket.gethostname(), "status": ERROR, "reason": "", "exit_code": None,
                              "wall_s": 0.0}
    stats = run_dir / "stats.json"
    log = run_dir / "run.log"
    for stale in (stats, run_dir / "result.json"):
        stale.unlink(missing_ok=True)
    _write_json(run_dir / "spec.json", {k: task[k] for k in sorted(task) if k != "run_dir"})
    try:
        cfg_dir = run_dir / "config"
        cfg_dir.mkdir(exist_ok=True)
        for f in task["config_files"]:
            shutil.copy2(f, cfg_dir / Path(f).name)
        cwd = Path(task["cwd"]) if task.get("cwd") else run_dir
        if not task.get("cwd"):
            for f in task["inputs"]:
                shutil.copy2(f, run_dir / Path(f).name)
        env = run_env(task["gpu"], task["config_file"], task["functional"], list(task["sets"]), str(stats))
    except (OSError, SystemExit) as exc:
        result["reason"] = f"could not prepare the run: {exc}"
        _write_json(run_dir / "result.json", result)
        return result
    timeout = float(task.get("timeout_s") or 0) or None
    start = time.monotonic()
    timed_out = False
    with open(log, "wb") as out:
        try:
            proc = subprocess.Popen([task["binary"], *task["args"]], cwd=cwd, env=env, stdout=out,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True, preexec_fn=_die_with_parent)
        except OSError as exc:
            result["reason"] = f"cannot start {task['binary']}: {exc.strerror or exc}"
            _write_json(run_dir / "result.json", result)
            return result
        _write_json(run_dir / "started.json", {"worker_pid": os.getpid(), "app_pid": proc.pid,
                                               "attempt": attempts, "host": result["host"]})
        try:
            try:
                rc = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    rc = proc.wait(timeout=_TERM_GRACE_S)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    rc = proc.wait()
        except BaseException:
            # interrupted (Ctrl-C in a serial sweep, a worker shutting down): leave nothing running
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.wait()
            raise
    result["wall_s"] = round(time.monotonic() - start, 3)
    result["exit_code"] = rc
    if timed_out:
        result["status"], result["reason"] = TIMEOUT, f"over the time limit of {timeout:g} s"
    elif rc < 0:
        result["status"], result["reason"] = CRASHED, f"killed by {_signal_name(-rc)}"
    elif rc != 0 and _stopped_by_limit(stats):
        result["status"], result["reason"] = OK, f"exit status {rc}: stopped by a -gpgpu_max_* limit"
    elif rc != 0:
        last = _last_line(log)
        result["status"], result["reason"] = FAILED, f"exit status {rc}" + (f": {last}" if last else "")
    elif not stats.is_file():
        result["status"], result["reason"] = FAILED, "exit status 0 but no statistics were written"
    else:
        result["status"] = OK
    _write_json(run_dir / "result.json", result)
    return result


def _stopped_by_limit(stats: Path) -> bool:
    """Whether the run ended at a stop limit (``-gpgpu_max_cycle`` ...): a result, not a failure."""
    try:
        run = json.loads(stats.read_text(encoding="utf-8")).get("run", {})
    except (OSError, ValueError, AttributeError):
        return False
    return isinstance(run, dict) and bool(run.get("limit")) and not run.get("interrupted")


def read_result(run_dir: Path) -> dict[str, Any] | None:
    """The run's ``result.json``, or None when there is none (never run, or unreadable)."""
    try:
        doc = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def record_lost(run_dir: Path, run_id: str, hash_: str, reason: str) -> dict[str, Any]:
    """Write and return the record of a run whose worker died (the engine gave up on it)."""
    try:
        attempts = int((run_dir / "attempts").read_text())
    except (OSError, ValueError):
        attempts = 1
    result = {"run_id": run_id, "hash": hash_, "attempts": attempts, "host": "", "status": LOST,
              "reason": reason, "exit_code": None, "wall_s": 0.0}
    run_dir.mkdir(parents=True, exist_ok=True)
    _write_json(run_dir / "result.json", result)
    return result
