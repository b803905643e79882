"""Metamorphic tests (issue 12): a meaning-preserving rewrite of an accepted op is recognized
like the op itself, and computes the same numbers.

Every accepted op of tests/ops/accept and tests/corpus/accept (a seed) is rewritten by each kind
of tests/metamorphic/rewrite.py that applies to it. For each rewrite, on two sets of random
inputs: the interpreter must give the seed's outputs (else rewrite.py is wrong, and the failure
names the kind); `explain` must recognize it like the seed (family, inputs, outputs, axes,
reductions); and its IR must compute the seed's interpreter outputs (rel. error <= 1e-6). The
rates per kind are in docs/metamorphic.md (`python3 tests/metamorphic/rates.py` writes it).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "metamorphic"))

import harness  # noqa: E402
import rates  # noqa: E402
from rewrite import KINDS  # noqa: E402

core = pytest.importorskip("solbench._core", reason="the extension is built by scripts/build")

# The rewrites solgen refuses today, with its refusal message (the rule id is left out: the
# rule ids are being split up). Each is a meaning-preserving rewrite of an op solgen accepts, so
# each is a gap of the raiser: the test checks that it is still refused with this message, and
# fails once it is recognized (then remove the entry). A rewrite recognized with other numbers
# than its seed never goes here: that is a miscompile, and always fails.
KNOWN_GAPS: dict[tuple[str, str], str] = {
    # Merged rows and sums over rows (issue 16, r2 §8): a merged nest written with While
    # loops, read in reverse, through a row buffer, or a row sum stored per branch, is not
    # followed yet.
    ('channel_sums_over_batch_and_plane', 'counted_as_while'):
        "'total' lives outside the loop over rows and is updated inside it, so one row's result depends on other rows",
    ('group_norm_four_groups', 'counted_as_while'):
        'a column read with a counter of an outer loop',
    ('instance_norm_over_height_width', 'counted_as_while'):
        "'output' runs over one of the axes of a merged row (r2 §8) as an axis of its own; write every loop nest over them alike (nested, with only Lets between)",
    ('channel_sums_over_batch_and_plane', 'reverse_reduction'):
        "'g' is indexed along the merged row (r2 §8) by something other than each axis' own loop counter (a shifted, reversed or strided read)",
    ('group_norm_four_groups', 'reverse_reduction'):
        "'x' is indexed along the merged row (r2 §8) by something other than each axis' own loop counter (a shifted, reversed or strided read)",
    ('instance_norm_over_height_width', 'reverse_reduction'):
        "'x' is indexed along the merged row (r2 §8) by something other than each axis' own loop counter (a shifted, reversed or strided read)",
    ('group_norm_four_groups', 'row_buffer'):
        "this reads another row of 'x' (a fixed or shifted row), so rows are not independent",
    ('channel_sums_over_batch_and_plane', 'store_per_branch'):
        "'total' holds a sum over rows; it can only be stored (`Set item c of out to total.`)",
    # Loop counters as values (issue 16): a reversed or seeded reduction loop moves what the
    # counter counts, which the raiser does not follow yet.
    ("column_counter_values", "reverse_reduction"):
        "the counter of a loop that reads the row in reverse",
    ("column_counter_values", "seed_first_element"):
        "a reduction must run over a whole axis of the row",
    # A constant inner loop (a reduction over an axis no tensor has) copied into a row buffer,
    # or seeded with its first step, is no longer a reduction the raiser knows.
    ("constant_inner_loop", "row_buffer"):
        "reads back a local sequence that is not a buffer of this row's columns",
    ("constant_inner_loop", "seed_first_element"):
        "fused row: per-row output 'y' reads elements outside a reduction",
    # A column sum seeded with its first row (`Let mutable total be item c of item 1 of x`,
    # the rows from 2) reads the column counter before its loop runs inside out; raised the
    # usual way, x is then read both per row and along the columns.
    ("column_sum_keeps_inner_axis", "seed_first_element"):
        "'x' is read both along the columns and once per row",
}

CASES = harness.cases()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("metamorphic")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rewrite_is_recognized_like_its_seed(case: harness.Case, workdir: Path) -> None:
    tmp = workdir / case.kind.name
    tmp.mkdir(exist_ok=True)
    out = harness.check(case, tmp)
    assert out.status != "invalid", f"rewrite.py's {case.kind.name} is wrong: {out.detail}"
    assert out.status != "miscompile", (
        f"MISCOMPILE: {case.seed.stem} rewritten by {case.kind.name} is recognized but computes "
        f"other numbers than the seed: {out.detail}\n{case.text}")
    gap = KNOWN_GAPS.get((case.seed.stem, case.kind.name))
    if gap is not None:
        assert out.status != "recognized", (
            f"{case.id} is recognized now: remove it from KNOWN_GAPS")
        assert (out.status, out.detail) == ("refused", gap), f"{case.id}: {out.detail}"
        pytest.xfail(f"known gap: {gap}")
    assert out.status == "recognized", f"{case.id}: {out.status}: {out.detail}\n{case.text}"


def test_known_gaps_are_cases() -> None:
    ids = {(c.seed.stem, c.kind.name) for c in CASES}
    assert not set(KNOWN_GAPS) - ids, "KNOWN_GAPS entries for rewrites that no longer exist"


def test_the_table_of_kinds() -> None:
    names = [k.name for k in KINDS]
    assert len(names) >= 20 and len(set(names)) == len(names)
    assert all(k.description and k.apply.__name__ == k.name for k in KINDS)
    applied = {c.kind.name for c in CASES}
    assert applied == set(names), f"kinds that apply to no op: {set(names) - applied}"


def test_every_accepted_op_is_a_seed() -> None:
    stems = [s.stem for s in harness.seeds()]
    assert len(stems) == len(set(stems)), "KNOWN_GAPS keys need unique op file stems"
    assert len(stems) == sum(len(list((c / "accept").glob("*.lg"))) for c in harness.CORPORA)
    assert {c.seed.stem for c in CASES} == set(stems)


def test_rates_doc_is_current() -> None:
    # With the test above passing, the outcomes are those KNOWN_GAPS implies.
    outcomes = {c.id: harness.Outcome("refused", KNOWN_GAPS[(c.seed.stem, c.kind.name)])
                if (c.seed.stem, c.kind.name) in KNOWN_GAPS else harness.Outcome("recognized")
                for c in CASES}
    assert rates.DOC.read_text() == rates.render(CASES, outcomes), (
        "docs/metamorphic.md is stale: run python3 tests/metamorphic/rates.py")


def test_the_checks_have_teeth(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seed = next(s for s in harness.seeds() if s.stem == "softmax")
    kind = KINDS[0]
    wrong = seed.source.replace("exp(v - m) / total", "exp(v - m) / (total + 1.0)")
    out = harness.check(harness.Case(seed, kind, wrong), workdir)
    assert out.status == "invalid" and "other numbers" in out.detail
    # the same numbers, but `item 1 of row` outside the max it starts: refused by design (§7)
    refused = seed.source.replace("exp(v - m) / total to", "exp(v - m) / total + 0.0 * m to")
    refused = refused.replace("+ 0.0 * m to", "+ 0.0 * item 1 of row to")
    out = harness.check(harness.Case(seed, kind, refused), workdir)
    assert out.status == "refused" and "item 1 of row" in out.detail, out
    right = kind.apply(seed.source, harness.rng_for(seed.stem, kind.name))
    assert right is not None
    real = core.evaluate_ir

    def off_by_a_bit(path: str, inputs: dict, op: str = "") -> dict:
        got = real(path, inputs, op)
        got["output"][0][0] *= 1.001
        return got

    monkeypatch.setattr(core, "evaluate_ir", off_by_a_bit)
    out = harness.check(harness.Case(seed, kind, right), workdir)
    assert out.status == "miscompile", out
    real_explain = core.explain
    monkeypatch.setattr(core, "explain", lambda path, op="": {**real_explain(path, op),
                                                             "family": "reduction"})
    out = harness.check(harness.Case(seed, kind, right), workdir)
    assert out.status == "different" and "family" in out.detail, out
