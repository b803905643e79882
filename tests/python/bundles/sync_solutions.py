"""Regenerate each test bundle's solution.json from its kernel.cu: `python sync_solutions.py`."""

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAMES = {"scale": "scale_rows_ok", "scale_wrong": "scale_rows_wrong",
         "scale_crash": "scale_rows_out_of_bounds"}


def solution_for(bundle: str) -> dict:
    return {
        "name": NAMES[bundle],
        "definition": "scale_rows_c64",
        "author": "solbench tests",
        "description": "handwritten test bundle",
        "spec": {
            "languages": ["cuda_cpp"],
            "target_hardware": ["B200", "LOCAL"],
            "entry_point": "kernel.cu::run",
            "dependencies": [],
            "destination_passing_style": True,
            "binding": "torch",
            "compile_options": {"cflags": [], "cuda_cflags": ["-O3", "--use_fast_math"],
                                "ld_flags": ["-lcuda"]},
        },
        "sources": [{"path": "kernel.cu",
                     "content": (HERE / bundle / "kernel.cu").read_text(encoding="utf-8")}],
    }


if __name__ == "__main__":
    for name in NAMES:
        text = json.dumps(solution_for(name), indent=2) + "\n"
        (HERE / name / "solution.json").write_text(text, encoding="utf-8")
