"""SOL-ExecBench conformance checking (`python -m solbench check`).

Needs only torch and the standard library; the CPU backend also uses solbench.cuda_host.
Submodules are imported on demand so that importing this package stays cheap.
"""
