"""The real corpus (tests/problems/real/, issue 11): definitions modeled on the
benchmark's published files bind unchanged to their LOGOS ops, and the bundles
pass `solgen check --problem DIR --device cpu` against references written
independently of solgen (a torch reference per problem, not the one solgen
prints). Out-of-family problems are refused with the rule named, exit 2, and
nothing written."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import cpu_check, solgen

from solbench.exit_codes import Exit

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "problems" / "real"
MANIFEST = json.loads((REAL / "manifest.json").read_text())["problems"]


def bind(name: str, out: Path) -> "subprocess.CompletedProcess[str]":
    """solgen op.lg --definition definition.json --out OUT, for the problem NAME."""
    problem = REAL / name
    return solgen(str(problem / "op.lg"), "--definition", str(problem / "definition.json"),
                  "--out", str(out))


def test_every_directory_is_in_the_manifest() -> None:
    dirs = sorted(p.name for p in REAL.iterdir() if p.is_dir())
    assert dirs == sorted(MANIFEST)


@pytest.mark.parametrize("name", sorted(n for n, e in MANIFEST.items() if e["expect"] == "pass"))
def test_binds_unchanged_and_passes_the_cpu_check(name: str, tmp_path: Path) -> None:
    problem = REAL / name
    bundle = tmp_path / "s"
    g = bind(name, bundle)
    assert g.returncode == Exit.OK, g.stderr
    definition = json.loads((problem / "definition.json").read_text())
    solution = json.loads((bundle / "solution.json").read_text())
    assert solution["definition"] == definition["name"]
    explain = json.loads(solgen("explain", "--json", str(problem / "op.lg")).stdout)
    assert explain["family"] == MANIFEST[name]["family"]
    summary = cpu_check(bundle, "--problem", str(problem))
    assert [w["status"] for w in summary["workloads"]] == ["PASSED", "PASSED"]


@pytest.mark.parametrize("name", sorted(n for n, e in MANIFEST.items() if e["expect"] == "refused"))
def test_out_of_family_is_refused_with_the_rule(name: str, tmp_path: Path) -> None:
    bundle = tmp_path / "s"
    g = bind(name, bundle)
    assert g.returncode == Exit.REJECTED, g.stderr
    want = MANIFEST[name]
    assert f"op.lg:{want['line']}:" in g.stderr and f"refused ({want['rule']})" in g.stderr, g.stderr
    assert not bundle.exists()
