"""Run solgen's front end over a directory of real LOGOS programs and say what
stops them: `python3 bench/logos_programs.py DIR` (e.g. a checkout of the
logicaffeine repository). Results are in docs/logos-language.md §1.

For every .lg file: `solgen explain --json`, then one line per kind of first
diagnostic (messages with their quoted names blanked), and how many files
stop at a `## To native` line or in a block the op does not reach (both must
be 0: such blocks are skipped unread).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path


def blocks(text: str) -> list[tuple[int, str]]:
    """(first line, header) of every `##` block."""
    return [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.startswith("##")]


def block_at(text: str, line: int) -> str:
    at = ""
    for n, header in blocks(text):
        if n <= line:
            at = header
    return at


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 64
    solgen = os.environ.get("SOLGEN") or shutil.which("solgen") or "build/solgen"
    files = sorted(Path(argv[0]).rglob("*.lg"))
    kinds: Counter[str] = Counter()
    at_native = in_main = recognized = with_native = 0
    for f in files:
        text = f.read_text(encoding="utf-8", errors="replace")
        with_native += any(h.startswith("## To native") for _, h in blocks(text))
        out = subprocess.run([solgen, "explain", "--json", str(f)], capture_output=True,
                             text=True, timeout=60).stdout
        j = json.loads(out)
        if "op" in j:
            recognized += 1
            kinds["recognized"] += 1
            continue
        diags = j.get("errors") or [j["refused"]]
        first = diags[0]
        kinds[re.sub(r"`[^`]*`|'[^']*'", "_", first["message"])[:80]] += 1
        for d in diags:
            header = block_at(text, d["line"]) if d["line"] else ""
            at_native += header.startswith("## To native")
            in_main += header.startswith("## Main")
    print(f"{len(files)} files, {with_native} with a `## To native` declaration")
    print(f"recognized as an op: {recognized}")
    print(f"diagnostics at a `## To native` line: {at_native}; inside `## Main`: {in_main}")
    for kind, n in kinds.most_common():
        print(f"{n:4d}  {kind}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
