"""solgen's exit codes, for the Python commands (check, compile, bench).

The table is the C++ core's (solbench/csrc/cli/exit_codes.h), read through
_core, so the native and the Python commands cannot drift apart; README's
"Exit codes" section says the same in words.
"""

from __future__ import annotations

import argparse
import sys
from enum import IntEnum
from typing import NoReturn

from solbench import _core

Exit = IntEnum("Exit", {name.upper(): code for name, code in _core.exit_codes()})  # type: ignore[misc]


class ArgumentParser(argparse.ArgumentParser):
    """argparse with solgen's usage exit code (Exit.USAGE, not argparse's 2)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(int(Exit.USAGE))

