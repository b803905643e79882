"""`python -m solbench CMD ...`: the solgen command line from Python.

The routing table lives in the C++ core (solbench/csrc/cli/cli.cpp): the
commands it marks as Python (check, compile, bench: they need torch) run here
through their module's main(); every other command line runs in the core, the
same code as the native `solgen` that `pip install .` puts on PATH.
"""

from __future__ import annotations

import importlib
import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    from solbench import _core

    module = _core.python_module(args[0]) if args else None
    if module is not None:
        return int(importlib.import_module(module).main(args[1:]))
    sys.stdout.flush()
    return int(_core.main(["solgen", *args]))


if __name__ == "__main__":
    sys.exit(main())
