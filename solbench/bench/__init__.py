"""`solgen bench`: time a bundle on a CUDA GPU against its reference and torch.compile.

Import-light: torch and matplotlib are imported only when a command runs or a chart is drawn.
"""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    from .cli import main as cli_main

    return cli_main(argv)
