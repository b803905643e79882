"""Recognition rates of the metamorphic rewrites: prints them and writes docs/metamorphic.md.

    python3 tests/metamorphic/rates.py

Runs every (op, kind) case of harness.cases() through harness.check (the interpreter, solgen's
explain and the IR evaluator of the built solbench._core) and reports, per kind, how many ops
it applies to and how many of those rewrites solgen recognizes like their seed. Exits 1 when a
rewrite is wrong (the interpreter disagrees), recognized differently, or miscompiled.
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import REPO, Case, Outcome, cases, check, seeds  # noqa: E402
from rewrite import KINDS  # noqa: E402

DOC = REPO / "docs" / "metamorphic.md"

_INTRO = """\
# Metamorphic tests: what solgen recognizes after a meaning-preserving rewrite

`tests/python/test_metamorphic.py` rewrites every accepted op of
[`tests/ops/accept`](../tests/ops/accept/) and [`tests/corpus/accept`](../tests/corpus/accept/)
(the seeds) with each kind of meaning-preserving rewrite of
[`tests/metamorphic/rewrite.py`](../tests/metamorphic/rewrite.py) that applies to it. For each
rewrite it checks, on two sets of random inputs, that the LOGOS interpreter gives the seed's
outputs (else the rewrite is wrong, and the test names its kind); then that `solgen explain`
recognizes it as it recognizes the seed (family, op, inputs and outputs with their ranks,
dtypes, roles and shapes, the axes, and the kinds of reductions); and that the rewrite's IR
computes the seed's interpreter outputs (relative error at most 1e-6: a reordered float64 sum
rounds differently). A rewrite recognized with other numbers fails the suite; none is today.
A rewrite that solgen refuses fails it too, unless it is listed in the test's `KNOWN_GAPS`
(the list below), where the test checks that it is still refused with the same message.

This page is written by `python3 tests/metamorphic/rates.py`, which runs every case; the test
checks that it matches `KNOWN_GAPS`.
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(all_cases: list[Case], outcomes: dict[str, Outcome]) -> str:
    applied = Counter(c.kind.name for c in all_cases)
    good = Counter(c.kind.name for c in all_cases if outcomes[c.id].status == "recognized")
    ops = len(seeds())
    total, ok = len(all_cases), sum(good.values())
    lines = [_INTRO, "## Rates", "",
             f"{len(KINDS)} kinds of rewrite, {ops} seeds, {total} (op, kind) cases: "
             f"**{ok} recognized like their seed ({100 * ok / total:.1f}%)**.", "",
             "| kind | what it rewrites | ops it applies to | recognized like the seed | rate |",
             "|---|---|---:|---:|---:|"]
    for k in KINDS:
        n, g = applied[k.name], good[k.name]
        rate = f"{100 * g / n:.0f}%" if n else "-"
        lines.append(f"| `{k.name}` | {k.description} | {n} | {g} | {rate} |")
    lines += [f"| **all** | | **{total}** | **{ok}** | **{100 * ok / total:.1f}%** |", ""]
    titles = {"refused": "Rewrites solgen refuses today (`KNOWN_GAPS`)",
              "different": "Rewrites recognized differently from their seed",
              "miscompile": "Rewrites recognized with other numbers (miscompiles)",
              "invalid": "Rewrites that change the meaning (bugs of rewrite.py)"}
    for status, title in titles.items():
        bad = sorted((c for c in all_cases if outcomes[c.id].status == status),
                     key=lambda c: (c.kind.name, c.seed.stem))
        lines += [f"## {title}", ""]
        if not bad:
            lines += ["None.", ""]
            continue
        lines += [f"{len(bad)} rewrites.", "", "| op | kind | solgen says |", "|---|---|---|"]
        lines += [f"| `{c.seed.stem}` | `{c.kind.name}` | {_cell(outcomes[c.id].detail)} |"
                  for c in bad]
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    all_cases = cases()
    with tempfile.TemporaryDirectory() as tmp:
        outcomes = {c.id: check(c, Path(tmp)) for c in all_cases}
    text = render(all_cases, outcomes)
    DOC.write_text(text)
    print(text)
    status = Counter(o.status for o in outcomes.values())
    print(f"rates.py: {dict(status)}; wrote {DOC.relative_to(REPO)}")
    return 0 if set(status) <= {"recognized", "refused"} else 1


if __name__ == "__main__":
    sys.exit(main())
