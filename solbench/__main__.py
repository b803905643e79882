"""`python -m solbench <command>`: dispatches subcommands lazily."""

from __future__ import annotations

import sys

_USAGE = "usage: python -m solbench check BUNDLE [options]   (see `python -m solbench check -h`)"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] == "check":
        from solbench.conformance.cli import main as check_main

        return check_main(args[1:])
    if args and args[0] in ("-h", "--help"):
        print(_USAGE)
        return 0
    print(_USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
