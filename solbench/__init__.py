"""solbench: turn LOGOS tensor ops into SOL-ExecBench submissions and check them locally.

Kept import-light on purpose: importing the package must not pull in torch or the
C++ extension; subpackages (``solbench.conformance``, ``solbench.cuda_host``) do that
when they are used.
"""

__version__ = "0.1.0"
