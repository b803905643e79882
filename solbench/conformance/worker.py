"""The child process: `python -m solbench.conformance.worker JOB.json`.

JOB.json is an isolation.WorkerJob. BUILD compiles the bundle once (result {"ok", "log"}); EVAL
evaluates one workload (result: a WorkloadResult as JSON). The result goes to the job's
result_path; a crash leaves none.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path
from typing import Any

from .isolation import JobMode, WorkerJob


def _build(job: WorkerJob) -> dict[str, Any]:
    from .backends import build
    from .problem import load_solution

    sol = load_solution(job.bundle_dir / "solution.json")
    try:
        build(job.plan, sol, verbose=False)
    except Exception as e:  # noqa: BLE001 - every build failure is a COMPILE_ERROR
        text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        return {"ok": False, "log": text[-8000:]}
    return {"ok": True, "log": ""}


def _eval(job: WorkerJob) -> dict[str, Any]:
    from .problem import load_bundle
    from .runner import evaluate_workload

    bundle = load_bundle(job.bundle_dir, job.problem_dir)
    res = evaluate_workload(bundle, job.workload_index, job.plan, job.rounds, job.timing,
                            stream=job.stream, replay=job.replay, seeds=job.seeds)
    return res.to_json()


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m solbench.conformance.worker JOB.json", file=sys.stderr)
        return 2
    job = WorkerJob.from_json(json.loads(Path(argv[0]).read_text(encoding="utf-8")))
    if job.result_path is None:
        print("worker: the job names no result_path", file=sys.stderr)
        return 2
    result = _build(job) if job.mode is JobMode.BUILD else _eval(job)
    job.result_path.write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
