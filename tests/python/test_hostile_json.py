"""Malformed benchmark JSON (tests/hostile/json, expectations in tests/hostile/manifest.json).

definition.json files go to `solgen OP --definition FILE --out DIR`: a bad one must stop
solgen with exit code 1 or 2 and a message naming the file, and write nothing.
solution.json / workload.jsonl files are swapped into a generated rmsnorm bundle and
checked with `solbench check`: a bad one is exit code 2 with a message naming the file,
before anything is compiled.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from solbench.exit_codes import Exit

REPO = Path(__file__).resolve().parents[2]
HOSTILE = REPO / "tests" / "hostile"
RMSNORM = REPO / "examples" / "rmsnorm.lg"
MANIFEST = json.loads((HOSTILE / "manifest.json").read_text(encoding="utf-8"))
CASES = sorted((k, v) for k, v in MANIFEST.items() if k.startswith("json/"))

# Cases that fail because of a known bug; the test is skipped with this reason only while
# the bug shows (a fixed bug makes the test assert again).
KNOWN_BUGS: dict[str, str] = {}

MAX_MESSAGE = 64 * 1024  # a diagnostic must not echo a multi-megabyte input


def _solgen() -> str | None:
    return os.environ.get("SOLGEN") or shutil.which("solgen")


@pytest.fixture(scope="module")
def solgen() -> str:
    exe = _solgen()
    if exe is None:
        pytest.skip("no solgen binary: set SOLGEN or put the build directory on PATH")
    return exe


@pytest.fixture(scope="module")
def base_bundle(solgen: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated rmsnorm bundle bound to valid_definition.json."""
    out = tmp_path_factory.mktemp("hostile") / "base"
    r = subprocess.run([solgen, str(RMSNORM), "--definition",
                        str(HOSTILE / "json" / "valid_definition.json"), "--out", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return out


def _ids(cases: list[tuple[str, dict]]) -> list[str]:
    return [k.split("/", 1)[1] for k, _ in cases]


DEFINITIONS = [c for c in CASES if c[1]["kind"] == "definition"]
BUNDLE_FILES = [c for c in CASES if c[1]["kind"] in ("solution", "workload")]


def test_manifest_covers_every_json_file() -> None:
    on_disk = {f"json/{p.name}" for p in (HOSTILE / "json").iterdir()}
    assert on_disk == {k for k, _ in CASES}
    for _, v in CASES:
        assert v["kind"] in ("definition", "solution", "workload")
        assert v["expect"] in ("ok", "error")


@pytest.mark.parametrize("key,case", DEFINITIONS, ids=_ids(DEFINITIONS))
def test_definition(key: str, case: dict, solgen: str, tmp_path: Path) -> None:
    path = HOSTILE / key
    r = subprocess.run([solgen, str(RMSNORM), "--definition", str(path), "--out",
                        str(tmp_path / "b")], capture_output=True, timeout=30)
    err = r.stderr.decode("utf-8", "replace")
    if case["expect"] == "ok":
        assert r.returncode == 0, err
        assert (tmp_path / "b" / "solution.json").is_file()
        return
    if r.returncode == 0 and key in KNOWN_BUGS:
        pytest.skip(KNOWN_BUGS[key])
    assert r.returncode == Exit.REJECTED, f"exit {r.returncode}: {err[:500]}"
    assert str(path) in err, err[:500]
    assert case.get("message", "") in err, err[:500]
    assert len(r.stderr) < MAX_MESSAGE
    assert list(tmp_path.iterdir()) == [], "files were written for a bad definition"


@pytest.mark.parametrize("key,case", [c for c in DEFINITIONS if c[1].get("checked_by") != "bind"],
                         ids=_ids([c for c in DEFINITIONS if c[1].get("checked_by") != "bind"]))
def test_definition_is_read_alike_by_check(key: str, case: dict) -> None:
    """`solgen check` reads each definition as solgen (and the harness's models) do."""
    from solbench.conformance.problem import BundleError, load_definition

    path = HOSTILE / key
    if case["expect"] == "ok":
        assert load_definition(path).name == "rmsnorm_h4096"
        return
    with pytest.raises(BundleError) as e:
        load_definition(path)
    assert str(path) in str(e.value)
    assert len(str(e.value)) < MAX_MESSAGE


class _BuildAttempted(AssertionError):
    pass


def _swap(base: Path, key: str, kind: str, dest: Path) -> Path:
    shutil.copytree(base, dest)
    target = dest / ("solution.json" if kind == "solution" else "workload.jsonl")
    shutil.copyfile(HOSTILE / key, target)
    return target


@pytest.mark.parametrize("key,case", BUNDLE_FILES, ids=_ids(BUNDLE_FILES))
def test_bundle_file(key: str, case: dict, base_bundle: Path, tmp_path: Path,
                     monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from solbench.conformance import runner
    from solbench.conformance.cli import main as check_main
    from solbench.conformance.problem import load_bundle

    bundle = tmp_path / "b"
    swapped = _swap(base_bundle, key, case["kind"], bundle)
    if case["expect"] == "ok":
        loaded = load_bundle(bundle)
        assert loaded.definition.name == "rmsnorm_h4096"
        assert loaded.workloads
        if "note" in case:  # accepted as the harness accepts it, with a word to the author
            assert any(case["note"] in n for w in loaded.workloads for n in w.notes)
        return

    def no_build(*_a: object, **_k: object) -> None:
        raise _BuildAttempted("malformed metadata must be rejected before anything is compiled")

    monkeypatch.setattr(runner, "_build", no_build)
    try:
        rc = check_main([str(bundle), "--device", "cpu", "--workloads", "1", "--no-timing"])
    except Exception as e:  # noqa: BLE001 - an escaping exception is the bug under test
        if key in KNOWN_BUGS:
            pytest.skip(f"{KNOWN_BUGS[key]} [{type(e).__name__}]")
        raise
    err = capsys.readouterr().err
    assert rc == Exit.REJECTED, err[:500]
    assert str(swapped) in err, err[:500]
    assert case.get("message", "") in err, err[:500]
    assert len(err) < MAX_MESSAGE


def test_check_command_exit_code(base_bundle: Path, tmp_path: Path) -> None:
    """The real `python3 -m solbench check` process, once: rejected (2) and the file named."""
    bundle = tmp_path / "b"
    swapped = _swap(base_bundle, "json/sol_missing_spec.json", "solution", bundle)
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-m", "solbench", "check", str(bundle), "--device", "cpu",
                        "--workloads", "1", "--no-timing"],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == Exit.REJECTED, r.stderr[-2000:]
    assert str(swapped) in r.stderr
    assert "Traceback" not in r.stderr
