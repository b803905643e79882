"""The printed PyTorch references (reference.py in solgen bundles) run and compute the op.

Each corpus op is generated with solgen; its reference is exec'd on CPU with torch
and compared with the op written directly in torch.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import built_solgen

torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "corpus" / "accept"


@pytest.fixture(scope="module")
def bundles(tmp_path_factory) -> dict[str, Path]:
    solgen = built_solgen()
    if solgen is None:
        pytest.skip("no solgen binary built (set SOLBENCH_SOLGEN)")
    out = tmp_path_factory.mktemp("ref")
    made = {}
    for lg in sorted(CORPUS.glob("*.lg")):
        target = out / lg.stem
        proc = subprocess.run([str(solgen), str(lg), "--out", str(target)],
                              capture_output=True, text=True, timeout=120)
        if proc.returncode == 0:
            made[lg.stem] = target
    if not made:
        pytest.skip("solgen generated no bundle from the corpus")
    return made


def _load_run(bundle: Path):
    namespace: dict = {}
    exec(compile((bundle / "reference.py").read_text(), str(bundle / "reference.py"), "exec"),
         namespace)
    return namespace["run"]


def _definition(bundle: Path) -> dict:
    return json.loads((bundle / "definition.json").read_text())


def _bundle(bundles, name):
    if name not in bundles:
        pytest.skip(f"solgen did not generate {name}")
    return bundles[name]


def test_reference_matches_definition(bundles):
    for name, bundle in bundles.items():
        definition = _definition(bundle)
        assert definition["reference"] == (bundle / "reference.py").read_text(), name
        src = definition["reference"]
        params = ", ".join(definition["inputs"].keys())
        assert f"def run({params}):" in src, name


def test_rmsnorm_reference(bundles):
    run = _load_run(_bundle(bundles, "rmsnorm"))
    torch.manual_seed(0)
    x = torch.randn(7, 256, dtype=torch.bfloat16)
    w = torch.randn(256, dtype=torch.bfloat16)
    out = run(x, w)
    xf = x.float()
    expected = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5) * w.float())
    assert out.dtype == torch.bfloat16 and out.shape == x.shape
    torch.testing.assert_close(out.float(), expected.to(torch.bfloat16).float(), rtol=2e-2,
                               atol=2e-2)


def test_softmax_reference(bundles):
    run = _load_run(_bundle(bundles, "softmax"))
    x = torch.randn(5, 300)
    out = run(x)
    torch.testing.assert_close(out, torch.softmax(x, dim=-1), rtol=1e-5, atol=1e-6)


def test_swiglu_packed_reference(bundles):
    run = _load_run(_bundle(bundles, "swiglu_packed"))
    x = torch.randn(4, 2 * 96, dtype=torch.bfloat16)
    out = run(x)
    g, u = x.float()[:, :96], x.float()[:, 96:]
    expected = torch.nn.functional.silu(g) * u
    assert out.shape == (4, 96)
    torch.testing.assert_close(out.float(), expected, rtol=2e-2, atol=2e-2)


def test_row_reduction_references(bundles):
    x = torch.randn(6, 130)
    if "row_sum" in bundles:
        torch.testing.assert_close(_load_run(bundles["row_sum"])(x), x.sum(-1), rtol=1e-5,
                                   atol=1e-4)
    if "l2_norm" in bundles:
        torch.testing.assert_close(_load_run(bundles["l2_norm"])(x), x.norm(dim=-1), rtol=1e-5,
                                   atol=1e-5)
    if "row_max" in bundles:
        xb = x.to(torch.bfloat16)
        torch.testing.assert_close(_load_run(bundles["row_max"])(xb), xb.amax(-1))


def test_every_reference_runs(bundles):
    """Every generated reference runs on inputs shaped by its definition."""
    for name, bundle in bundles.items():
        definition = _definition(bundle)
        sizes = {}
        for axis, spec in definition["axes"].items():
            if spec["type"] == "const":
                sizes[axis] = spec["value"]
            elif spec["type"] == "var":
                sizes[axis] = 3 if axis not in ("hidden_size",) else 64
        for axis, spec in definition["axes"].items():
            if spec["type"] == "expr":
                sizes[axis] = eval(spec["expression"], {}, dict(sizes))  # noqa: S307
        args = []
        for spec in definition["inputs"].values():
            dtype = getattr(torch, spec["dtype"])
            if spec["shape"] is None:
                args.append(1e-5)
            else:
                args.append(torch.randn(*[sizes[a] for a in spec["shape"]]).to(dtype))
        result = _load_run(bundle)(*args)
        outputs = result if isinstance(result, tuple) else (result,)
        for out, spec in zip(outputs, definition["outputs"].values()):
            assert out.dtype == getattr(torch, spec["dtype"]), name
            assert list(out.shape) == [sizes[a] for a in spec["shape"]], name
            assert torch.isfinite(out.float()).all(), name
