"""The CPU builds' precompiled prelude: the engine header and torch/extension.h, parsed once.

Every CPU build force-includes the engine header and then parses ``torch/extension.h``
(about 20 s and 1.4 GB of g++ per kernel). The prelude header includes both, in that order,
and is precompiled once per compiler, torch, flag set and engine version into a GCC ``.gch``
beside it; a build then force-includes the prelude instead of the engine header, and the
kernel's own ``#include <torch/extension.h>`` is a no-op (the header is already in).

GCC falls back to reading the prelude as text whenever a ``.gch`` does not match the
compilation (a different macro, flag or compiler), so using it can slow a build down but
never change what is compiled. The ``.gch`` lives under ``$SOLBENCH_PCH_DIR`` (default
``~/.cache/solbench/pch``), keyed by a digest of everything it depends on.

``SOLBENCH_NO_PCH=1`` builds without it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sysconfig
import tempfile
from pathlib import Path

PRELUDE_TEXT = '#include "solbench_cuda_host.h"\n#include <torch/extension.h>\n'


def compiler() -> str:
    """The C++ compiler torch.utils.cpp_extension uses ($CXX, else c++)."""
    return os.environ.get("CXX", "c++")


def torch_cflags() -> list[str]:
    """The flags torch.utils.cpp_extension.load puts before ours, less the module's name.

    TORCH_EXTENSION_NAME is left out on purpose: it differs per module, torch's headers never
    read it, and GCC accepts a .gch when a macro its headers do not mention is defined.
    """
    from torch.utils import cpp_extension

    includes = list(cpp_extension.include_paths("cpu"))
    python_include = sysconfig.get_path("include", scheme="posix_prefix")
    if python_include:
        includes.append(python_include)
    flags = ["-DTORCH_API_INCLUDE_EXTENSION_H"]
    for inc in includes:
        flags += ["-isystem", inc]
    return flags + ["-fPIC", "-std=c++20"]


def pch_root() -> Path:
    env = os.environ.get("SOLBENCH_PCH_DIR")
    return Path(env) if env else Path.home() / ".cache" / "solbench" / "pch"


def _compiler_identity(cxx: str) -> str:
    path = shutil.which(cxx) or cxx
    out = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    return f"{os.path.realpath(path)}\n{out.stdout}"


def _is_gcc(identity: str) -> bool:
    return "Free Software Foundation" in identity or "(GCC)" in identity or "g++" in identity


def prelude_header(engine_flags: list[str], engine_digest: str) -> str | None:
    """The prelude to force-include, with its .gch built (or found) beside it.

    engine_flags: the flags every CPU build adds after torch's (optimisation, standard,
    include paths of the engine); the .gch is valid only for those. Returns None where no
    precompiled header can be had (not GCC, SOLBENCH_NO_PCH set, or its build failed): the
    caller then force-includes the engine header as before.
    """
    if os.environ.get("SOLBENCH_NO_PCH"):
        return None
    cxx = compiler()
    identity = _compiler_identity(cxx)
    if not _is_gcc(identity):
        return None
    import torch

    flags = torch_cflags() + list(engine_flags)
    key = json.dumps([identity, torch.__version__, flags, engine_digest, PRELUDE_TEXT])
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    directory = pch_root() / digest
    header = directory / "solbench_prelude.h"
    gch = directory / "solbench_prelude.h.gch"
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory.parent / f"{digest}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second process waits, then finds it built
        if not gch.exists():
            header.write_text(PRELUDE_TEXT, encoding="utf-8")
            if not _precompile(cxx, flags, header, gch):
                return None
    return str(header)


def _precompile(cxx: str, flags: list[str], header: Path, gch: Path) -> bool:
    """Compile header into gch (written whole or not at all); False when g++ fails."""
    fd, tmp = tempfile.mkstemp(dir=gch.parent, suffix=".gch.tmp")
    os.close(fd)
    cmd = [cxx, *flags, "-x", "c++-header", str(header), "-o", tmp]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        Path(tmp).unlink(missing_ok=True)
        (gch.parent / "error.log").write_text(" ".join(cmd) + "\n" + done.stderr, encoding="utf-8")
        return False
    os.replace(tmp, gch)
    return True
