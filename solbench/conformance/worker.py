"""The child process: `python -m solbench.conformance.worker JOB.json`.

Modes: "build" compiles the bundle once (result {"ok", "log"}); "eval" evaluates one workload
(result: a WorkloadResult as JSON). The result goes to job["result_path"]; a crash leaves none.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path
from typing import Any


def _build(job: dict[str, Any]) -> dict[str, Any]:
    from .backends import BuildPlan, build
    from .problem import load_solution

    plan = BuildPlan.from_json(job["plan"])
    sol = load_solution(Path(job["bundle_dir"]) / "solution.json")
    try:
        build(plan, sol, verbose=False)
    except Exception as e:  # noqa: BLE001 - every build failure is a COMPILE_ERROR
        text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        return {"ok": False, "log": text[-8000:]}
    return {"ok": True, "log": ""}


def _eval(job: dict[str, Any]) -> dict[str, Any]:
    from .backends import BuildPlan
    from .problem import load_bundle
    from .runner import evaluate_workload

    bundle = load_bundle(Path(job["bundle_dir"]), Path(job["problem_dir"]))
    res = evaluate_workload(bundle, int(job["workload_index"]), BuildPlan.from_json(job["plan"]),
                            job["device"], int(job["rounds"]), bool(job.get("timing", False)))
    return res.to_json()


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m solbench.conformance.worker JOB.json", file=sys.stderr)
        return 2
    job = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    result = _build(job) if job["mode"] == "build" else _eval(job)
    Path(job["result_path"]).write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
