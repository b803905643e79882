"""solbench's CUDA execution layer: build a CUDA submission's sources for the CPU and run them.

The same ``kernel.cu`` text that nvcc builds for the GPU is copied byte-identical to a ``.cpp``
file and compiled by g++ against torch's CPU build, with the engine header
(``include/solbench_cuda_host.h``) force-included and shim headers (``cuda_runtime.h``,
``cuda_bf16.h``, ``cuda_fp16.h``, ``ATen/cuda/CUDAContext.h``, ``c10/cuda/CUDAGuard.h``) first on
the include path. ``cudaLaunchKernelEx`` then runs the grid with CUDA's semantics: one fiber per
thread, warp collectives and ``__syncthreads`` as rendezvous, bounds-checked dynamic shared
memory, and kernel faults raised as ``RuntimeError`` naming the kernel, block and thread.

Tensors made by :func:`guarded_empty` / :func:`guarded_copy` end exactly at an inaccessible page,
so a kernel that reads or writes one element past the end faults instead of corrupting memory.
See docs/cpu-backend.md.
"""

from __future__ import annotations

import contextlib
import ctypes
import mmap
import os
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

__all__ = [
    "include_dir",
    "engine_digest",
    "engine_header",
    "cpu_cflags",
    "load_cpu_extension",
    "guarded_empty",
    "guarded_copy",
    "LoadTrace",
    "trace_loads",
]

_INCLUDE_DIR = Path(__file__).resolve().parent / "include"
_SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")


def engine_digest() -> str:
    """A hash of the engine's headers: builds made against other headers are stale."""
    import hashlib

    h = hashlib.sha256()
    for path in sorted(_INCLUDE_DIR.rglob("*.h")):
        h.update(str(path.relative_to(_INCLUDE_DIR)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def include_dir() -> str:
    """The directory holding the shim headers (must precede torch's include paths)."""
    return str(_INCLUDE_DIR)


def engine_header() -> str:
    """The engine header that is force-included into every translation unit."""
    return str(_INCLUDE_DIR / "solbench_cuda_host.h")


def _engine_flags() -> list[str]:
    """Flags every CPU build adds after torch's; the precompiled prelude is built with them.

    -fno-strict-aliasing: kernels pun between uint4, bf16 pairs and scalars as nvcc permits.
    """
    return ["-O2", "-std=c++20", "-fno-strict-aliasing", "-I", include_dir()]


def cpu_cflags(source_dirs: Iterable[str] = (), prelude: str | None = None) -> list[str]:
    """The compiler flags that make CUDA sources build as host C++ against torch's CPU build.

    prelude: a header to force-include in place of the engine header (solbench.cuda_host.
    prelude: the engine header and torch/extension.h, precompiled).
    """
    flags = _engine_flags() + ["-include", prelude or engine_header()]
    for d in source_dirs:
        flags += ["-I", str(d)]
    return flags


def _staged_name(src: Path) -> str:
    # kernel.cu -> kernel_cu.cpp: distinct for kernel.cu and kernel.cpp, and always a C++ suffix
    # so torch.utils.cpp_extension compiles it with the host compiler, never nvcc.
    return f"{src.stem}_{src.suffix.lstrip('.')}.cpp"


def _stage(src: Path, build_dir: Path) -> str:
    data = src.read_bytes()
    dst = build_dir / _staged_name(src)
    # Rewrite only on change so ninja's timestamps keep an unchanged build up to date.
    if not dst.exists() or dst.read_bytes() != data:
        dst.write_bytes(data)
    return str(dst)


def load_cpu_extension(name: str, sources: list[str], build_directory: str,
                       extra_cflags: Sequence[str] = (), verbose: bool = False) -> Any:
    """Build CUDA submission sources for the CPU backend and import the resulting module.

    Each source is copied byte-identical into ``build_directory`` as a ``.cpp`` file and built
    with ``torch.utils.cpp_extension.load``; headers next to the originals stay reachable through
    ``-I <their directory>``. The engine header and torch/extension.h come in first, from a
    precompiled header where g++ can use one (solbench.cuda_host.prelude). The module's
    functions take CPU tensors.
    """
    from torch.utils import cpp_extension

    build_dir = Path(build_directory)
    build_dir.mkdir(parents=True, exist_ok=True)
    originals = [Path(s).resolve() for s in sources]
    for src in originals:
        if src.suffix not in _SOURCE_SUFFIXES:
            raise ValueError(f"{src}: not a compilable source (expected one of {_SOURCE_SUFFIXES})")
    staged = [_stage(src, build_dir) for src in originals]
    source_dirs = list(dict.fromkeys(str(src.parent) for src in originals))
    from .prelude import prelude_header

    flags = cpu_cflags(source_dirs, prelude_header(_engine_flags(), engine_digest()))
    flags += list(extra_cflags)
    try:
        return cpp_extension.load(name=name, sources=staged, extra_cflags=flags,
                                  build_directory=str(build_dir), with_cuda=False,
                                  verbose=verbose)
    except ImportError as e:
        if "undefined symbol" in str(e):
            raise ImportError(
                f"{e}\nhint: the CPU backend resolves dynamic shared memory only when it is "
                "declared exactly as `extern __shared__ __align__(16) unsigned char smem[];` at "
                "global namespace scope (docs/kernel-contract.md)") from e
        raise


# --------------------------------------------------------------------------- guarded tensors

_PAGE = mmap.PAGESIZE
_PROT_NONE = 0
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.mprotect.restype = ctypes.c_int


def _protect(address: int, length: int) -> None:
    if _libc.mprotect(address, length, _PROT_NONE) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mprotect failed: {os.strerror(err)}")


def guarded_empty(shape: Sequence[int], dtype: Any) -> Any:
    """An uninitialised contiguous CPU tensor whose last byte is followed by a PROT_NONE page.

    The storage lives in its own anonymous mapping [guard page][data pages][guard page] and ends
    exactly where the upper guard begins, so an access one element past the end faults (and the
    CPU backend reports it). The tensor keeps the mapping alive. The start is aligned to the
    element size, and to 16 bytes when the byte size is a multiple of 16.
    """
    import torch

    shape = tuple(int(s) for s in shape)
    numel = 1
    for s in shape:
        if s < 0:
            raise ValueError(f"negative dimension in shape {shape}")
        numel *= s
    itemsize = torch.empty((), dtype=dtype).element_size()
    nbytes = numel * itemsize
    if nbytes == 0:
        return torch.empty(shape, dtype=dtype)
    data_pages = -(-nbytes // _PAGE)
    region = mmap.mmap(-1, (data_pages + 2) * _PAGE,
                       flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                       prot=mmap.PROT_READ | mmap.PROT_WRITE)
    anchor = ctypes.c_char.from_buffer(region)
    base = ctypes.addressof(anchor)
    del anchor  # release the buffer export; the address stays valid while `region` lives
    _protect(base, _PAGE)
    _protect(base + (data_pages + 1) * _PAGE, _PAGE)
    offset = (data_pages + 1) * _PAGE - nbytes
    # frombuffer holds a reference to `region`, so the mapping lives as long as the storage.
    flat = torch.frombuffer(region, dtype=torch.uint8, count=nbytes, offset=offset)
    return flat.view(dtype).view(shape)


def guarded_copy(t: Any) -> Any:
    """A guarded (see :func:`guarded_empty`) contiguous CPU copy of ``t``."""
    out = guarded_empty(tuple(t.shape), t.dtype)
    out.copy_(t.detach().to("cpu"))
    return out


# --------------------------------------------------------------------------- load traces


class LoadTrace:
    """The global loads (``__ldg``) that a traced stretch of kernel calls made.

    ``records`` is an int64 tensor of shape [loads, 2]: (address, bytes) per load, in no
    particular order (blocks run on several OS threads). :meth:`bytes_from` attributes them to a
    tensor.
    """

    def __init__(self) -> None:
        import torch

        self.records = torch.zeros((0, 2), dtype=torch.int64)

    def bytes_from(self, t: Any) -> tuple[int, int]:
        """(bytes loaded from ``t`` in all, how many of its bytes were loaded at least once).

        Loaded in all / ``t.nbytes`` is the number of passes the kernels made over ``t``.
        """
        import torch

        start = t.data_ptr()
        nbytes = t.numel() * t.element_size()
        address, size = self.records[:, 0], self.records[:, 1]
        inside = (address >= start) & (address < start + nbytes)
        offsets, size = address[inside] - start, size[inside]
        seen = torch.zeros(nbytes, dtype=torch.bool)
        for n in size.unique().tolist():
            spans = offsets[size == n][:, None] + torch.arange(n, dtype=torch.int64)[None, :]
            seen[spans.flatten().clamp(max=nbytes - 1)] = True
        return int(size.sum()), int(seen.sum())


@contextlib.contextmanager
def trace_loads(module: Any) -> Iterator[LoadTrace]:
    """Record the global loads of every kernel that ``module`` (built by
    :func:`load_cpu_extension`) runs inside the ``with`` block::

        with trace_loads(mod) as trace:
            mod.run(x, out)
        total, distinct = trace.bytes_from(x)
    """
    lib = ctypes.CDLL(module.__file__)
    try:
        begin, end, copy = (lib.solbench_load_trace_begin, lib.solbench_load_trace_end,
                            lib.solbench_load_trace_copy)
    except AttributeError as e:
        raise RuntimeError(f"{module.__file__} was built without load tracing "
                           "(an older solbench.cuda_host); rebuild it") from e
    end.restype = ctypes.c_uint64
    copy.argtypes = [ctypes.POINTER(ctypes.c_uint64)]
    trace = LoadTrace()
    begin()
    try:
        yield trace
    finally:
        import torch

        count = end()
        records = torch.zeros((count, 2), dtype=torch.int64)
        if count:
            copy(ctypes.cast(records.data_ptr(), ctypes.POINTER(ctypes.c_uint64)))
        trace.records = records
