"""`python -m solbench <command>`: the same command line as `solgen` (see solbench.cli)."""

from __future__ import annotations

import sys

from solbench.cli import main

if __name__ == "__main__":
    sys.exit(main())
