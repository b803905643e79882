"""Building and calling a solution: on the GPU as the harness does, on the CPU via cuda_host.

GPU: sources are staged into a directory, the top-level .cu/.cpp/.cc/.cxx/.c files are built
with torch.utils.cpp_extension.load (extra_cuda_cflags with the harness's -gencode injection),
and the module is imported. CPU: the same sources are built by solbench.cuda_host against
torch's CPU build, and inputs/outputs live in guard-paged memory when cuda_host offers it.

Builds are cached by a content hash under $SOLBENCH_CACHE (default ~/.cache/solbench): the
build directory holds a `.built` marker once a build succeeded, and later processes import the
built module directly.

Which of the two a caller wants is a `Backend`; what differs between them is asked of it.
"""

from __future__ import annotations

import enum
import fcntl
import hashlib
import importlib.util
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from .problem import Solution

BUILD_TIMEOUT_S = 120.0  # the harness's build limit
CPU_BUILD_TIMEOUT_S = 900.0  # host C++ against torch headers is slower than nvcc on a big box

B200_GENCODE = "-gencode=arch=compute_100a,code=sm_100a"


def cache_root() -> Path:
    env = os.environ.get("SOLBENCH_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "solbench"


# --- flags ----------------------------------------------------------------------------------


def has_arch_flag(cuda_cflags: list[str]) -> bool:
    return any("-gencode" in f or "-arch" in f for f in cuda_cflags)


def local_gencode(capability: tuple[int, int]) -> str:
    """The local GPU's plain sm_XY (sm_90 on H100/H200, never the 'a' variant)."""
    xy = f"{capability[0]}{capability[1]}"
    return f"-gencode=arch=compute_{xy},code=sm_{xy}"


def select_hardware(target_hardware: list[str], device_name: str | None) -> str:
    """Which of the solution's targets applies on this machine."""
    on_b200 = device_name is not None and "B200" in device_name.upper()
    if on_b200 and "B200" in target_hardware:
        return "B200"
    if "LOCAL" in target_hardware:
        return "LOCAL"
    return target_hardware[0]


def cuda_flags_for(cuda_cflags: list[str], hardware: str,
                   capability: tuple[int, int] | None) -> list[str]:
    """The harness prepends an arch flag unless the solution already names one."""
    flags = list(cuda_cflags)
    if has_arch_flag(flags):
        return flags
    if hardware == "B200":
        return [B200_GENCODE] + flags
    if capability is not None:
        return [local_gencode(capability)] + flags
    return flags


# --- the backend ----------------------------------------------------------------------------


class Backend(enum.Enum):
    """Where a solution is built and run; holds every rule that differs between the two.

    The value is the name used on the command line, in a job's JSON, in the content hash and as
    the cache directory (<cache>/cpu/..., <cache>/cuda/...): changing it moves every cache entry.
    """

    CPU = "cpu"  # the CUDA sources compiled for the host by solbench.cuda_host
    CUDA = "cuda"  # nvcc via torch.utils.cpp_extension, as the harness builds

    @staticmethod
    def parse(text: str) -> "Backend":
        try:
            return Backend(text)
        except ValueError:
            raise ValueError(f"unknown backend {text!r} (cpu or cuda)") from None

    @property
    def torch_device(self) -> str:
        """The torch device type inputs and outputs live on."""
        return self.value

    @property
    def build_timeout_s(self) -> float:
        return BUILD_TIMEOUT_S if self is Backend.CUDA else CPU_BUILD_TIMEOUT_S

    def available(self) -> bool:
        if self is Backend.CPU:
            return cpu_backend_available()
        import torch

        return torch.cuda.is_available()

    def device_facts(self) -> tuple[str, tuple[int, int] | None]:
        """(the device's name, its compute capability) for the build flags and the traces."""
        if self is Backend.CPU:
            return "cpu (solbench.cuda_host)", None
        import torch

        return torch.cuda.get_device_name(0), torch.cuda.get_device_capability(0)

    def hardware(self, target_hardware: list[str], device_name: str | None) -> str:
        """The hardware a trace names: the solution's target on a GPU."""
        if self is Backend.CPU:
            return "CPU"
        return select_hardware(target_hardware, device_name)

    def flags(self, solution: Solution, device_name: str | None,
              capability: tuple[int, int] | None) -> tuple[list[str], list[str], list[str]]:
        """(cuda_cflags, ldflags, the flags the content hash covers)."""
        if self is Backend.CPU:  # the host compiler takes neither nvcc's flags nor -lcuda
            return [], [], list(solution.cflags)
        hw = select_hardware(solution.target_hardware, device_name)
        cuda_cflags = cuda_flags_for(solution.cuda_cflags, hw, capability)
        hashed = solution.cflags + ["|"] + cuda_cflags + ["|"] + solution.ld_flags
        return cuda_cflags, list(solution.ld_flags), hashed

    def hash_extra(self) -> str:
        """What else is compiled into the module: the CPU execution layer's headers."""
        if self is Backend.CUDA:
            return ""
        from solbench.cuda_host import engine_digest

        return engine_digest()

    def compile(self, plan: "BuildPlan", verbose: bool) -> ModuleType:
        """Compile and import the plan's staged sources."""
        if self is Backend.CUDA:
            from torch.utils.cpp_extension import load

            return load(name=plan.name, sources=plan.sources, extra_cflags=plan.cflags,
                        extra_cuda_cflags=plan.cuda_cflags, extra_ldflags=plan.ldflags,
                        extra_include_paths=[plan.stage_dir], build_directory=plan.build_dir,
                        verbose=verbose, with_cuda=True)
        from solbench.cuda_host import load_cpu_extension

        return load_cpu_extension(plan.name, plan.sources, plan.build_dir,
                                  extra_cflags=plan.cflags + [f"-I{plan.stage_dir}"],
                                  verbose=verbose)

    def prepare_import(self) -> None:
        """Load what a built module links against besides torch."""
        if self is Backend.CPU:
            import solbench.cuda_host  # noqa: F401 - the CPU execution layer's runtime

    def solution_input(self, value: Any) -> Any:
        """Inputs as the solution sees them: guard-paged copies on the CPU."""
        import torch

        if not isinstance(value, torch.Tensor):
            return value
        if self is Backend.CPU:
            ch = _cuda_host()
            if ch is not None and hasattr(ch, "guarded_copy"):
                return ch.guarded_copy(value.contiguous())
        return value.contiguous().clone()

    def solution_output(self, shape: tuple[int, ...], dtype: Any, device: Any) -> Any:
        """A preallocated contiguous output of the definition dtype (guard-paged on the CPU)."""
        import torch

        if self is Backend.CPU:
            ch = _cuda_host()
            if ch is not None and hasattr(ch, "guarded_empty"):
                return ch.guarded_empty(list(shape), dtype)
        return torch.empty(shape, dtype=dtype, device=device)


# --- the build plan -------------------------------------------------------------------------


@dataclass
class BuildPlan:
    backend: Backend
    name: str  # the extension (TORCH_EXTENSION_NAME)
    build_dir: str
    stage_dir: str
    sources: list[str]  # absolute paths of the compiled files
    cflags: list[str]
    cuda_cflags: list[str] = field(default_factory=list)
    ldflags: list[str] = field(default_factory=list)
    entry_function: str = "run"

    def to_json(self) -> dict[str, Any]:
        return dict(asdict(self), backend=self.backend.value)

    @staticmethod
    def from_json(d: dict[str, Any]) -> "BuildPlan":
        return BuildPlan(**dict(d, backend=Backend.parse(d["backend"])))

    @property
    def marker(self) -> Path:
        return Path(self.build_dir) / ".built"


def content_hash(solution: Solution, backend: Backend, flags: list[str]) -> str:
    import torch

    h = hashlib.sha256()
    h.update(json.dumps([backend.value, torch.__version__, flags]).encode())
    h.update(backend.hash_extra().encode())
    for s in sorted(solution.sources, key=lambda s: s.path):
        h.update(json.dumps([s.path, s.content]).encode())
    return h.hexdigest()


def stage_sources(solution: Solution, stage_dir: Path) -> list[str]:
    """Write every source under stage_dir; return the absolute paths of the compiled ones."""
    stage_dir.mkdir(parents=True, exist_ok=True)
    for s in solution.sources:
        dest = stage_dir / s.path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(s.content, encoding="utf-8")
    return [str(stage_dir / p) for p in solution.compiled_sources()]


def plan_build(solution: Solution, backend: Backend, root: Path | None = None,
               device_name: str | None = None,
               capability: tuple[int, int] | None = None) -> BuildPlan:
    root = root or cache_root()
    cuda_cflags, ldflags, hashed = backend.flags(solution, device_name, capability)
    digest = content_hash(solution, backend, hashed)[:16]
    name = f"benchmark_kernel_{digest}"
    build_dir = root / backend.value / name
    stage_dir = build_dir / "src"
    sources = [str(stage_dir / p) for p in solution.compiled_sources()]
    return BuildPlan(backend, name, str(build_dir), str(stage_dir), sources,
                     list(solution.cflags), cuda_cflags, ldflags, solution.entry_function)


def build(plan: BuildPlan, solution: Solution, verbose: bool = False) -> ModuleType:
    """Compile in this process (the caller runs this in a subprocess with a time limit).

    Processes building the same cache entry at once (parallel checks, or a check and a test)
    take turns on a lock file beside it; whoever comes second finds the build done and loads it.
    """
    build_dir = Path(plan.build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    with open(build_dir.parent / f"{plan.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if plan.marker.exists():
            try:
                return load_built(plan)
            except FileNotFoundError:  # the marker outlived its module: build again
                plan.marker.unlink()
        return _build_locked(plan, solution, verbose)


def _build_locked(plan: BuildPlan, solution: Solution, verbose: bool) -> ModuleType:
    stage_sources(solution, Path(plan.stage_dir))
    mod = plan.backend.compile(plan, verbose)
    if not callable(getattr(mod, plan.entry_function, None)):
        raise AttributeError(f"the built module defines no function '{plan.entry_function}' "
                             "(PYBIND11_MODULE must m.def it)")
    plan.marker.write_text("ok\n")
    return mod


def load_built(plan: BuildPlan) -> ModuleType:
    """Import an already-built module (after build() succeeded, in any process)."""
    import torch  # noqa: F401 - the extension links against torch's libraries

    plan.backend.prepare_import()
    candidates = sorted(Path(plan.build_dir).glob(f"{plan.name}*.so")) + sorted(
        Path(plan.build_dir).glob(f"{plan.name}*.pyd"))
    if not plan.marker.exists() or not candidates:
        raise FileNotFoundError(f"no built module {plan.name} in {plan.build_dir}")
    spec = importlib.util.spec_from_file_location(plan.name, str(candidates[0]))
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {candidates[0]}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --- the CPU execution layer ----------------------------------------------------------------


def _cuda_host() -> Any:
    try:
        import solbench.cuda_host as ch

        return ch
    except ImportError:
        return None


def cpu_backend_available() -> bool:
    ch = _cuda_host()
    return ch is not None and callable(getattr(ch, "load_cpu_extension", None))
