"""solbench: turn LOGOS tensor ops into SOL-ExecBench submissions and check them locally.

Kept import-light on purpose: importing the package must not pull in torch or the
C++ extension; subpackages (``solbench.conformance``, ``solbench.cuda_host``) do that
when they are used.
"""


def _version() -> str:
    """pyproject.toml's version: from the installed metadata, or the checkout's file."""
    from importlib import metadata
    from pathlib import Path

    try:
        return metadata.version("solbench")
    except metadata.PackageNotFoundError:
        import re

        pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
        m = re.search(r'^version = "([^"]+)"', pyproject.read_text(encoding="utf-8"), re.M)
        return m.group(1) if m else "0+unknown"


__version__ = _version()
