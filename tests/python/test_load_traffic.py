"""How many times the generated kernels read each input, counted on the CPU backend.

The ops are memory-bound, so their floor is one read of every input and one write of every
output. solbench.cuda_host records every global load a kernel makes (``trace_loads``), and
solbench.bench.traffic attributes the loads to the tensors of one call:

- a row input is read exactly once (every byte, no byte twice) whenever the row fits the
  register cache: the reductions and the epilogue read the cached copy, not memory;
- a broadcast column input (a norm's weight) is read once per row (from L2 on a GPU), every byte
  of it;
- the gated family reads its inputs (the packed halves included) once;
- when a row is too long to cache, the kernel re-reads it once per pass, and independent
  reductions share a pass.

The modules are built by the conformance checker's build (same content-hashed cache as
``solgen check --device cpu``), so a bundle that test_submissions_conform built is reused.
"""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from solbench.bench.traffic import column_axes, measure, module_for  # noqa: E402
from solbench.conformance import problem  # noqa: E402
from solbench.cuda_host import trace_loads  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BUNDLES = sorted(p for p in (ROOT / "submissions").iterdir() if (p / "solution.json").exists())


def _widths(bundle: Path) -> list[int]:
    defn = problem.load_definition(bundle / "definition.json")
    # Half-warp, warp and block-per-row lengths; 0: the row length is a constant.
    return [128, 1024, 4096] if column_axes(defn) else [0]


CASES = [(b, w) for b in BUNDLES for w in _widths(b)]


@pytest.mark.parametrize("bundle,cols", CASES,
                         ids=[f"{b.name}-{w or 'const'}" for b, w in CASES])
def test_every_input_byte_is_read_once_when_the_row_fits(bundle: Path, cols: int) -> None:
    traffic = measure(bundle, cols)
    assert traffic.rows > 1
    for t in traffic.inputs:
        assert t.distinct == t.nbytes, f"{t.name}: {t.nbytes - t.distinct} bytes never read"
        want = traffic.rows if t.broadcast else 1
        assert t.passes == want, f"{t.name} is read {t.passes:g} times, not {want}"
    assert traffic.dram_ratio() == 1.0


@pytest.mark.parametrize("bundle,passes", [("rmsnorm", 2), ("softmax", 2), ("log_softmax", 2), ("layernorm", 3),
                                           ("row_stats", 1), ("minmax_scale", 2)])
def test_a_row_too_long_to_cache_is_read_once_per_pass(bundle: str, passes: int) -> None:
    # 32768 columns exceed every cached variant (32 floats x 256 threads per row).
    traffic = measure(ROOT / "submissions" / bundle, 32768)
    row_input = traffic.inputs[0]
    assert not row_input.broadcast
    assert row_input.distinct == row_input.nbytes
    assert row_input.passes == passes


def test_trace_sees_only_the_traced_calls() -> None:
    mod = module_for(ROOT / "submissions" / "row_sum")
    x = torch.randn(4, 256)
    out = torch.empty(4)
    mod.run(x, out)  # untraced
    with trace_loads(mod) as trace:
        pass
    assert len(trace.records) == 0
    with trace_loads(mod) as trace:
        mod.run(x, out)
        mod.run(x, out)
    assert trace.bytes_from(x) == (2 * x.numel() * 4, x.numel() * 4)
    assert trace.bytes_from(out) == (0, 0)
    assert torch.allclose(out, x.sum(dim=1), rtol=1e-5, atol=1e-5)
