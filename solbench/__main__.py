"""`python -m solbench <command>`: the same command line as `solgen`.

check, compile and bench need only torch; the other commands need the C++
extension (`pip install .` or scripts/build)."""

from __future__ import annotations

import sys

from solbench.cli import main

if __name__ == "__main__":
    sys.exit(main())
