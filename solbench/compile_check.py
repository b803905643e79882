"""Compile conformance: build a bundle's sources with nvcc the way the harness does.

SOL-ExecBench builds the top-level ``.cu/.cpp/.cc/.cxx/.c`` sources of a
solution with ``torch.utils.cpp_extension.load``. This module reproduces that
nvcc command line (torch's include paths and COMMON_NVCC_FLAGS, the
``-D__CUDA_NO_*`` macros, ``-fPIC``, the language standard torch appends, the
solution's ``cuda_cflags``), compiles each source with ``-c`` only for the
requested architectures (sm_100a and sm_90 by default) with ``-Xptxas -v``,
and reports per kernel and architecture: registers, spill stores and loads,
and shared memory. It fails on a compile error, on any warning located in the
bundle's own sources, and on any spill.

    python -m solbench.compile_check BUNDLE [--arch sm_100a --arch sm_90] [--ptx DIR] [--json]
                                            [--device-only]

--device-only compiles each architecture to a cubin (``-cubin``) instead: the same
front end (whose diagnostics cover host and device code alike), cicc and ptxas,
so the same registers, spills, warnings and SASS, without the host compiler's
pass over torch's headers (about half of the time). The tests check every bundle
this way and keep one full compile.

Successful nvcc runs are cached by content (solbench.nvcc_cache): a rerun on the same
sources, flags and nvcc replays the report without compiling.

With --ptx (or ``ptx_dir``) each architecture's PTX and cubin of each source are kept, as
``<stem>.<arch>.ptx`` and ``<stem>.<arch>.cubin``: solbench.load_parallelism reads the cubin's
SASS.
"""

from __future__ import annotations

import enum
import json
import os
import re
import shutil
import sys
import sysconfig
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from solbench import nvcc_cache
from solbench.exit_codes import ArgumentParser, Exit

COMPILED_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")


class Mode(enum.Enum):
    FULL = "full"  # the harness's `nvcc -c` with every -gencode: device code and host object
    DEVICE = "device"  # one `nvcc -cubin` per architecture: device code only
DEFAULT_ARCHS = ("sm_100a", "sm_90")
DEFAULT_CUDA_CFLAGS = ["-O3", "--use_fast_math"]


@dataclass
class KernelUsage:
    kernel: str
    arch: str
    registers: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    shared_bytes: int = 0
    stack_bytes: int = 0


@dataclass
class SourceResult:
    source: str
    ok: bool
    returncode: int
    commands: list[list[str]]
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    kernels: list[KernelUsage] = field(default_factory=list)
    from_cache: bool = False  # every nvcc run of it was replayed (solbench.nvcc_cache)


def torch_nvcc_flags() -> tuple[list[str], list[str]]:
    """(include flags, common nvcc flags) as torch.utils.cpp_extension builds them."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torch.utils import cpp_extension

    includes = list(cpp_extension.include_paths("cuda"))
    python_include = sysconfig.get_path("include", scheme="posix_prefix")
    if python_include:
        includes.append(python_include)
    includes += _pip_cuda_includes(includes)
    include_flags: list[str] = []
    for inc in includes:
        include_flags += ["-isystem", inc]
    return include_flags, list(cpp_extension.COMMON_NVCC_FLAGS)


def _pip_cuda_includes(includes: list[str]) -> list[str]:
    """CUDA library headers torch needs (cusparse.h, ...) from the nvidia-* wheels, when
    the toolkit itself lacks them (a compiler-only toolkit). Searched after the toolkit."""
    if any(Path(inc, "cusparse.h").exists() for inc in includes):
        return []
    found = []
    for site in {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}:
        for header in sorted(Path(site, "nvidia").glob("*/include/cusparse.h")):
            found.append(str(header.parent))
    return found[:1]


def gencode(arch: str) -> str:
    """``sm_90`` -> ``-gencode=arch=compute_90,code=sm_90``."""
    m = re.fullmatch(r"sm_(\d+[a-z]?)", arch)
    if not m:
        raise ValueError(f"not an architecture: {arch!r} (expected e.g. sm_90 or sm_100a)")
    return f"-gencode=arch=compute_{m.group(1)},code={arch}"


def nvcc_command(nvcc: str, source: Path, staging: Path, out: Path, cuda_cflags: list[str],
                 archs: list[str], keep_dir: Path | None, mode: Mode = Mode.FULL) -> list[str]:
    """The harness's command; in Mode.DEVICE, for one arch, `-cubin` (out: the cubin) for `-c`."""
    include_flags, common = torch_nvcc_flags()
    cmd = [nvcc, "-DTORCH_EXTENSION_NAME=benchmark_kernel", "-DTORCH_API_INCLUDE_EXTENSION_H",
           f"-I{staging}"] + include_flags + common
    cmd += ["--compiler-options", "-fPIC"]
    # The harness lets the solution's own -gencode/-arch win; otherwise it prepends one.
    if not pinned_arch(cuda_cflags):
        for arch in archs:
            cmd.append(gencode(arch))
    cmd += cuda_cflags
    if not any(f.startswith("-std=") for f in cmd):
        cmd.append("-std=c++20")  # what torch.utils.cpp_extension appends
    cmd += ["-Xptxas", "-v", "-cubin" if mode is Mode.DEVICE else "-c", str(source), "-o", str(out)]
    if keep_dir is not None:
        cmd += ["-keep", f"-keep-dir={keep_dir}"]
    return cmd


_ENTRY = re.compile(r"ptxas info\s*: Compiling entry function '([^']+)' for '([^']+)'")
_PROPS = re.compile(r"ptxas info\s*: Function properties for (\S+)")
_STACK = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"ptxas info\s*: Used (\d+) registers(.*)")
_SMEM = re.compile(r"(\d+) bytes smem")


def parse_ptxas(text: str) -> list[KernelUsage]:
    """Per kernel and arch usage from ``-Xptxas -v`` output."""
    kernels: dict[tuple[str, str], KernelUsage] = {}
    current: KernelUsage | None = None
    props_for: str | None = None
    for line in text.splitlines():
        if m := _ENTRY.search(line):
            key = (m.group(1), m.group(2))
            current = kernels.setdefault(key, KernelUsage(kernel=m.group(1), arch=m.group(2)))
            props_for = None
            continue
        if m := _PROPS.search(line):
            props_for = m.group(1)
            continue
        if (m := _STACK.search(line)) and current is not None and props_for == current.kernel:
            current.stack_bytes = int(m.group(1))
            current.spill_stores = int(m.group(2))
            current.spill_loads = int(m.group(3))
            continue
        if (m := _USED.search(line)) and current is not None:
            current.registers = int(m.group(1))
            if s := _SMEM.search(m.group(2)):
                current.shared_bytes = int(s.group(1))
    return list(kernels.values())


def _own_diagnostics(text: str, names: set[str], kind: str) -> list[str]:
    """Lines reporting `kind` (warning/error) located in one of the bundle's files."""
    found = []
    for line in text.splitlines():
        if kind not in line:
            continue
        m = re.match(r"^(.*?)(?:\((\d+)\)|:(\d+):(?:\d+:)?)", line)
        if m and Path(m.group(1)).name in names:
            found.append(line.strip())
    return found


def load_solution(bundle: Path) -> dict:
    with open(bundle / "solution.json", encoding="utf-8") as f:
        return json.load(f)


def stage_sources(solution: dict, bundle: Path, staging: Path) -> list[Path]:
    """Writes the solution's sources as the harness does; returns the compiled ones."""
    compiled = []
    for src in solution.get("sources", []):
        rel = Path(src["path"])
        if rel.is_absolute() or ".." in rel.parts:
            raise ValueError(f"source path {src['path']!r} leaves the staging directory")
        dest = staging / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(src["content"], encoding="utf-8")
        if len(rel.parts) == 1 and rel.suffix in COMPILED_SUFFIXES:
            compiled.append(dest)
    return compiled


def pinned_arch(cuda_cflags: list[str]) -> bool:
    """The solution names its own architecture: the harness adds none."""
    return any("-gencode" in f or f.startswith("-arch") for f in cuda_cflags)


def check_bundle(bundle: Path, archs: list[str], ptx_dir: Path | None = None,
                 nvcc: str | None = None, mode: Mode = Mode.FULL) -> list[SourceResult]:
    nvcc = nvcc or shutil.which("nvcc") or "/usr/local/bin/nvcc"
    solution = load_solution(bundle)
    cuda_cflags = list(solution.get("spec", {}).get("compile_options", {}).get(
        "cuda_cflags", DEFAULT_CUDA_CFLAGS))
    if pinned_arch(cuda_cflags):
        mode = Mode.FULL  # a solution's own -gencode list cannot be split per arch
    results = []
    with tempfile.TemporaryDirectory(prefix="solbench-compile-") as tmp:
        staging = Path(tmp) / "staging"
        staging.mkdir()
        sources = stage_sources(solution, bundle, staging)
        names = {Path(s["path"]).name for s in solution.get("sources", [])}
        for source in sources:
            keep = Path(tmp) / ("keep-" + source.stem) if ptx_dir else None
            if keep:
                keep.mkdir()
            # FULL: one command for every arch; DEVICE: one per arch.
            runs = [archs] if mode is Mode.FULL else [[a] for a in archs]
            commands, output, rc, replayed = [], "", 0, True
            for run_archs in runs:
                run_keep = keep if keep is None or mode is Mode.FULL else keep / run_archs[0]
                if run_keep:
                    run_keep.mkdir(exist_ok=True)
                if mode is Mode.FULL:
                    out = Path(tmp) / (source.stem + ".o")
                else:  # the cubin is the output: kept (and cached) with the PTX
                    out = (run_keep or Path(tmp)) / f"{source.stem}.{run_archs[0]}.cubin"
                cmd = nvcc_command(nvcc, source, staging, out, cuda_cflags, run_archs, run_keep,
                                   mode)
                done = nvcc_cache.run(cmd, Path(tmp), staging, run_keep)
                commands.append(cmd)
                output += done.output
                rc = rc or done.returncode
                replayed = replayed and done.cached
            result = SourceResult(source=source.name, ok=rc == 0, returncode=rc,
                                  commands=commands,
                                  warnings=_unique(_own_diagnostics(output, names, "warning")),
                                  errors=_unique(_own_diagnostics(output, names, "error")),
                                  kernels=parse_ptxas(output), from_cache=replayed)
            if rc != 0 and not result.errors:
                result.errors = [l for l in output.splitlines() if "error" in l][:20] or \
                    output.splitlines()[-20:]
            if keep and ptx_dir:
                ptx_dir.mkdir(parents=True, exist_ok=True)
                # With one arch nvcc names the files <stem>.ptx and <stem>.cubin;
                # with several, <stem>.compute_90.ptx and the like.
                for arch in archs:
                    # FULL compiles every arch in one nvcc run; otherwise each has its own.
                    arch_keep, compiled = (keep, archs) if mode is Mode.FULL else \
                        (keep / arch, [arch])
                    for suffix in ("ptx", "cubin"):
                        for kept in _arch_files(arch_keep, suffix, arch, compiled)[:1]:
                            shutil.copy(kept, ptx_dir / f"{source.stem}.{arch}.{suffix}")
            results.append(result)
    return results


def _unique(lines: list[str]) -> list[str]:
    """Each diagnostic once (the front end runs once per arch in Mode.DEVICE)."""
    return list(dict.fromkeys(lines))


def _arch_files(keep: Path, suffix: str, arch: str, archs: list[str]) -> list[Path]:
    """The kept files of `arch` (sm_90: *_90.* or *_90a.*; sm_100a: *_100a.*), or every kept
    file when nvcc named them without an arch (one arch asked for)."""
    number = arch.removeprefix("sm_").rstrip("a")
    files = sorted(keep.glob(f"*.{suffix}"))
    mine = [p for p in files if f"_{number}." in p.name or f"_{number}a." in p.name]
    return mine if mine or archs != [arch] else files


def failures(results: list[SourceResult]) -> list[str]:
    problems = []
    for r in results:
        if not r.ok:
            problems.append(f"{r.source}: compile error (nvcc exit {r.returncode})")
            problems += [f"  {e}" for e in r.errors]
        problems += [f"{r.source}: {w}" for w in r.warnings]
        for k in r.kernels:
            if k.spill_stores or k.spill_loads:
                problems.append(f"{r.source}: {k.kernel} on {k.arch} spills "
                                f"({k.spill_stores} bytes stored, {k.spill_loads} bytes loaded)")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="solgen compile", description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path, help="a directory holding solution.json")
    parser.add_argument("--arch", action="append", dest="archs",
                        help="target architecture, repeatable (default: sm_100a and sm_90)")
    parser.add_argument("--ptx", type=Path,
                        help="also write the sm_90 PTX and cubin of each source here")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--nvcc", help="the nvcc to run (default: from PATH)")
    parser.add_argument("--device-only", action="store_true",
                        help="one -cubin per arch, no host compile (same report, about half the time)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help (OK) or a usage error (USAGE)
        return int(e.code or 0)
    nvcc = args.nvcc or shutil.which("nvcc") or "/usr/local/bin/nvcc"
    if not (os.path.isfile(nvcc) and os.access(nvcc, os.X_OK)):
        print(f"solgen compile: error: no nvcc at {nvcc} (put CUDA's bin/ on PATH, or --nvcc)",
              file=sys.stderr)
        return Exit.UNAVAILABLE
    archs = args.archs or list(DEFAULT_ARCHS)
    if args.ptx and "sm_90" not in archs:
        archs.append("sm_90")
    try:
        results = check_bundle(args.bundle, archs, args.ptx, nvcc,
                               Mode.DEVICE if args.device_only else Mode.FULL)
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as e:
        print(f"{args.bundle}: error: {e}", file=sys.stderr)
        return Exit.REJECTED
    problems = failures(results)
    if args.json:
        print(json.dumps({"ok": not problems, "problems": problems,
                          "sources": [asdict(r) for r in results]}, indent=2))
    else:
        for r in results:
            for k in sorted(r.kernels, key=lambda k: (k.arch, k.kernel)):
                print(f"{r.source} {k.arch} {k.kernel}: {k.registers} registers, "
                      f"{k.spill_stores}/{k.spill_loads} bytes spilled (store/load), "
                      f"{k.shared_bytes} bytes smem")
        for p in problems:
            print(p, file=sys.stderr)
        print("OK" if not problems else f"FAILED ({len(problems)} problems)")
    return Exit.OK if not problems else Exit.FAILED


if __name__ == "__main__":
    sys.exit(main())
