"""Running a job in a child process with a time limit, surviving crashes and hangs.

The child is `python -m solbench.conformance.worker JOB.json`; the job is a `WorkerJob`, written
here and read there by the same code. The child writes its result as JSON to the path named in
the job. A child that dies without a result (segfault, abort, guard-page
kill) is a crash; one that outlives the limit is killed with its whole process group.
"""

from __future__ import annotations

import enum
import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .backends import BuildPlan

_TAIL = 4000


class JobMode(enum.Enum):
    BUILD = "build"  # compile the bundle once; the result is {"ok", "log"}
    EVAL = "eval"  # evaluate one workload; the result is a WorkloadResult as JSON


@dataclass
class WorkerJob:
    """One job for the child process; its JSON is the only contract between the two sides."""

    mode: JobMode
    plan: BuildPlan
    bundle_dir: Path
    problem_dir: Path | None = None
    workload_index: int = 0  # workload_index ... seeds: EVAL only
    rounds: int = 0
    timing: bool = False
    result_path: Path | None = None  # set by run_worker
    stream: dict[str, Any] | None = None  # the input stream to continue (None: seed it)
    replay: list[int] = field(default_factory=list)  # workloads to draw past first
    seeds: int = 0  # further seeds to try a borderline pass on

    @staticmethod
    def build(plan: BuildPlan, bundle_dir: Path, problem_dir: Path | None) -> "WorkerJob":
        return WorkerJob(JobMode.BUILD, plan, Path(bundle_dir), _opt_path(problem_dir))

    @staticmethod
    def evaluate(plan: BuildPlan, bundle_dir: Path, problem_dir: Path, workload_index: int,
                 rounds: int, timing: bool, stream: dict[str, Any] | None = None,
                 replay: list[int] | None = None, seeds: int = 0) -> "WorkerJob":
        return WorkerJob(JobMode.EVAL, plan, Path(bundle_dir), Path(problem_dir), workload_index,
                         rounds, timing, None, stream, list(replay or []), seeds)

    def to_json(self) -> dict[str, Any]:
        return {"mode": self.mode.value, "plan": self.plan.to_json(),
                "bundle_dir": str(self.bundle_dir), "problem_dir": _opt_str(self.problem_dir),
                "workload_index": self.workload_index, "rounds": self.rounds,
                "timing": self.timing, "result_path": _opt_str(self.result_path),
                "stream": self.stream, "replay": self.replay, "seeds": self.seeds}

    @staticmethod
    def from_json(d: dict[str, Any]) -> "WorkerJob":
        return WorkerJob(JobMode(d["mode"]), BuildPlan.from_json(d["plan"]),
                         Path(d["bundle_dir"]), _opt_path(d["problem_dir"]),
                         int(d["workload_index"]), int(d["rounds"]), bool(d["timing"]),
                         _opt_path(d["result_path"]), d.get("stream"),
                         [int(i) for i in d.get("replay", [])], int(d.get("seeds", 0)))


def _opt_str(p: Path | None) -> str | None:
    return None if p is None else str(p)


def _opt_path(p: str | Path | None) -> Path | None:
    return None if p is None else Path(p)


@dataclass
class Outcome:
    kind: str  # "ok" | "crash" | "timeout"
    result: dict[str, Any] | None
    returncode: int | None
    output: str  # the tail of the child's stdout+stderr
    wall_seconds: float

    def describe(self) -> str:
        if self.kind == "timeout":
            return f"timed out after {self.wall_seconds:.1f} s"
        rc = self.returncode
        if rc is not None and rc < 0:
            try:
                name = signal.Signals(-rc).name
            except ValueError:
                name = f"signal {-rc}"
            return f"process killed by {name}"
        return f"process exited with code {rc} without a result"


def _tail(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data[-_TAIL:].decode("utf-8", errors="replace")


def run_command(argv: list[str], result_path: Path, timeout_s: float,
                env: dict[str, str] | None = None) -> Outcome:
    """Run argv; its result is the JSON it left at result_path (if it finished)."""
    import time

    with tempfile.NamedTemporaryFile(prefix="solbench-log-", suffix=".txt", delete=False) as log:
        log_path = Path(log.name)
    t0 = time.monotonic()
    try:
        with open(log_path, "wb") as log_fh:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log_fh,
                                    stderr=subprocess.STDOUT, start_new_session=True,
                                    env=env if env is not None else os.environ.copy())
            try:
                rc: int | None = proc.wait(timeout=timeout_s)
                kind = "ok"
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                rc, kind = None, "timeout"
        wall = time.monotonic() - t0
        output = _tail(log_path)
    finally:
        log_path.unlink(missing_ok=True)
    result = None
    if kind == "ok":
        try:
            result = json.loads(result_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            kind = "crash"
    return Outcome(kind, result, rc, output, wall)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the child leads its own session
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.wait()


def run_worker(job: WorkerJob, timeout_s: float) -> Outcome:
    """Run one worker job (see worker.py) in a fresh interpreter."""
    with tempfile.TemporaryDirectory(prefix="solbench-job-") as tmp:
        job_path = Path(tmp) / "job.json"
        result_path = Path(tmp) / "result.json"
        job = replace(job, result_path=result_path)
        job_path.write_text(json.dumps(job.to_json()), encoding="utf-8")
        env = os.environ.copy()
        root = str(Path(__file__).resolve().parents[2])  # so the child imports this solbench
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        argv = [sys.executable, "-m", "solbench.conformance.worker", str(job_path)]
        return run_command(argv, result_path, timeout_s, env)
