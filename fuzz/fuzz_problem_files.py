#!/usr/bin/env python3
"""atheris (libFuzzer for Python) target over every JSON file `solgen check` reads.

The first byte of an input picks the file (its value mod 4; the seeds use the digits):

  0  definition.json: load_definition; an accepted definition is then resolved with its
     var axes set to 1 and 7 (resolve_axes, shape_of of every tensor, workload_elements)
  1  workload.jsonl: load_workloads against valid_definition.json (rmsnorm), against
     tests/python/bundles/scale/definition.json (var, const and expr axes, a scalar input)
     and with no definition; each accepted workload then goes through resolve_axes,
     shape_of and workload_elements, as run_check does next
  2  solution.json: load_solution (and compiled_sources)
  3  a problem: definition.json, a NUL byte, workload.jsonl; both loaded, then as in 1

The bytes are written to one reused file per kind in a temporary directory and read by
the loaders themselves (they take paths; decoding and line splitting are part of what is
fuzzed). The rule, as for the C++ targets: an input may be accepted or refused, and a
refusal is a BundleError whose message starts with the file's path (`path[:line[:col]]: `,
a line number for every workload error not about the whole file) and is under 64 KiB.
Anything else escaping is a finding: another exception, a helper failing on a workload
the loader accepted (resolve_axes may refuse a definition's made-up var values with the
ValueError it documents, nothing else), an axis that resolves to a negative size, or an
accepted file whose JSON the harness's reader cannot parse (pydantic's validate_json, on
the whole file, or on each stripped line of a workload.jsonl as load_jsonl_file reads it).
Hangs and memory: libFuzzer's -timeout and -rss_limit_mb (bench/fuzz.sh passes them).

  FUZZ_TARGET=problem_files bench/fuzz.sh SECONDS        the usual way
  python3 fuzz/fuzz_problem_files.py --make-seeds DIR    write the seed corpus into DIR
  python3 fuzz/fuzz_problem_files.py [libFuzzer args]    fuzz; a crash file reproduces
                                                         with the file as the only arg

Seeds (--make-seeds) come from the published shapes of these files: tests/hostile/json/
(kind from tests/hostile/manifest.json), tests/problems/real/*/ and submissions/*/.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

HOSTILE = REPO / "tests" / "hostile"
VALID_DEFINITIONS = [HOSTILE / "json" / "valid_definition.json",
                     REPO / "tests" / "python" / "bundles" / "scale" / "definition.json"]
MAX_MESSAGE = 64 * 1024  # as tests/python/test_hostile_json.py
MAX_SEED = 64 * 1024  # larger files are left to the hostile tests, as in bench/fuzz.sh
KINDS = {"definition": 0, "workload": 1, "solution": 2, "problem": 3}
# load_workloads' errors about the whole file rather than one line
WHOLE_FILE = ("file not found", "not UTF-8 text", "cannot read", "no workloads")


def make_seeds(out: Path) -> int:
    """Write every seed, prefixed with its kind's digit, into out; returns the count."""
    out.mkdir(parents=True, exist_ok=True)
    seeds: list[tuple[str, str, bytes]] = []  # kind, name, content
    manifest = json.loads((HOSTILE / "manifest.json").read_text(encoding="utf-8"))
    for f in sorted((HOSTILE / "json").iterdir()):
        kind = manifest.get(f"json/{f.name}", {}).get("kind")
        if kind is None:  # valid_* files are not in the manifest: tell them by extension
            kind = ("workload" if f.suffix == ".jsonl" else
                    "solution" if "solution" in f.name else "definition")
        seeds.append((kind, f.name, f.read_bytes()))
    for d in sorted((REPO / "tests" / "problems" / "real").glob("*/")) + \
            sorted((REPO / "submissions").glob("*/")):
        tag = f"{d.parent.name}_{d.name}"
        files = {n: d / n for n in ("definition.json", "workload.jsonl", "solution.json")}
        for name, kind in (("definition.json", "definition"), ("workload.jsonl", "workload"),
                           ("solution.json", "solution")):
            if files[name].is_file():
                seeds.append((kind, f"{tag}_{name}", files[name].read_bytes()))
        if files["definition.json"].is_file() and files["workload.jsonl"].is_file():
            seeds.append(("problem", f"{tag}_problem", files["definition.json"].read_bytes()
                          + b"\0" + files["workload.jsonl"].read_bytes()))
    n = 0
    for kind, name, content in seeds:
        data = str(KINDS[kind]).encode() + content
        if len(data) > MAX_SEED:
            continue
        (out / f"{n:04d}_{name}").write_bytes(data)
        n += 1
    return n


class Finding(AssertionError):
    """A rule of this target broken (not an exception of the code under test)."""


def _instrument(atheris, module) -> None:  # noqa: ANN001
    """Coverage for the functions and methods defined in module (nested ones included).

    Not atheris.instrument_imports: an editable install (scikit-build-core) imports solbench
    through its own loader, which that hook does not instrument."""
    for obj in list(vars(module).values()):
        members = vars(obj).values() if isinstance(obj, type) else [obj]
        for f in members:
            f = getattr(f, "__func__", f)  # staticmethod, classmethod
            f = getattr(f, "fget", f)  # property
            if getattr(f, "__module__", None) == module.__name__ and hasattr(f, "__code__"):
                atheris.instrument_func(f)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--make-seeds":
        print(f"fuzz_problem_files: {make_seeds(Path(sys.argv[2]))} seeds in {sys.argv[2]}")
        return

    import atheris

    from solbench.conformance import coerce, problem

    for module in (problem, coerce):
        _instrument(atheris, module)

    from typing import Any

    from pydantic import TypeAdapter, ValidationError

    harness_json = TypeAdapter(Any)  # the JSON reader of the harness's model_validate_json
    BundleError = problem.BundleError
    tmp = Path(tempfile.mkdtemp(prefix="fuzz_problem_files."))
    paths = {k: tmp / k for k in ("definition.json", "workload.jsonl", "solution.json")}
    fixed = [problem.load_definition(p) for p in VALID_DEFINITIONS]

    def refused(e: BundleError, path: Path, line_required: bool = False) -> None:
        msg = str(e)
        if len(msg.encode("utf-8", "surrogatepass")) >= MAX_MESSAGE:
            raise Finding(f"a message of {len(msg)} characters") from e
        m = re.match(re.escape(str(path)) + r"(:\d+(:\d+)?)?: ", msg)
        if m is None:
            raise Finding(f"the message does not start with '{path}: ': {msg[:200]!r}") from e
        if line_required and m.group(1) is None and not msg[m.end():].startswith(WHOLE_FILE):
            raise Finding(f"a workload error without a line: {msg[:200]!r}") from e

    def harness_reads(text: bytes, what: str) -> None:
        """solgen check accepted text: the harness's pydantic JSON reader must parse it too."""
        try:
            harness_json.validate_json(text)
        except ValidationError as e:
            raise Finding(f"{what} accepted, but pydantic cannot read its JSON: "
                          f"{str(e).splitlines()[1][:200]}") from None

    def resolved(defn: problem.Definition, w_axes: dict, documented: bool) -> None:
        """What run_check and the input generator do with a definition and its axes.
        documented: resolve_axes may refuse these values (ValueError)."""
        try:
            axes = problem.resolve_axes(defn, w_axes)
        except ValueError:
            if documented:
                return
            raise
        for name, v in axes.items():
            if type(v) is not int or v < 0:
                raise Finding(f"axis {name!r} resolves to {v!r}, not a size")
        for spec in defn.inputs + defn.outputs:
            problem.shape_of(spec, axes)
        w = problem.Workload("u", dict(w_axes), {}, problem.Tolerance(), 1)
        problem.workload_elements(defn, w)

    def workloads(defn: problem.Definition | None, check_json: bool) -> None:
        path = paths["workload.jsonl"]
        try:
            loaded = problem.load_workloads(path, defn)
        except BundleError as e:
            refused(e, path, line_required=True)
            return
        if check_json:  # the lines as load_jsonl_file reads them (text mode: \r\n is \n)
            for line in path.read_text(encoding="utf-8").split("\n"):
                if line.strip():
                    harness_reads(line.strip().encode("utf-8"), "a workload line")
        if defn is not None:
            for w in loaded:
                resolved(defn, w.axes, documented=False)
                problem.workload_elements(defn, w)

    def one_input(data: bytes) -> None:
        if not data:
            return
        kind, body = data[0] % 4, data[1:]
        if kind == 0:
            path = paths["definition.json"]
            path.write_bytes(body)
            try:
                defn = problem.load_definition(path)
            except BundleError as e:
                refused(e, path)
                return
            harness_reads(body, "definition.json")
            for v in (1, 7):
                resolved(defn, {a.name: v for a in defn.axes.values() if a.kind == "var"},
                         documented=True)
        elif kind == 1:
            paths["workload.jsonl"].write_bytes(body)
            for defn in fixed:
                workloads(defn, check_json=False)
            workloads(None, check_json=True)  # accepted with a definition: accepted without
        elif kind == 2:
            path = paths["solution.json"]
            path.write_bytes(body)
            try:
                problem.load_solution(path).compiled_sources()
            except BundleError as e:
                refused(e, path)
                return
            harness_reads(body, "solution.json")
        else:
            d, _, w = body.partition(b"\0")
            paths["definition.json"].write_bytes(d)
            paths["workload.jsonl"].write_bytes(w)
            try:
                defn = problem.load_definition(paths["definition.json"])
            except BundleError as e:
                refused(e, paths["definition.json"])
                return
            harness_reads(d, "definition.json")
            workloads(defn, check_json=True)

    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
