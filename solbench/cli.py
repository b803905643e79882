"""The `solgen` console script that `pip install .` puts on PATH.

`check`, `bench` and `compile` run here in Python (they need torch); every other
command line goes to the C++ core, the same code as the standalone binary.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] == "check":
        from solbench.conformance.cli import main as check_main

        return check_main(args[1:])
    if args and args[0] == "compile":
        from solbench.compile_check import main as compile_main

        return compile_main(args[1:])
    if args and args[0] == "bench":
        from solbench.bench import main as bench_main

        return bench_main(args[1:])
    from solbench import _core

    sys.stdout.flush()
    return _core.main(["solgen", *args])


if __name__ == "__main__":
    sys.exit(main())
