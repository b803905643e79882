"""Read a kernel's machine code (SASS) for how many global loads it keeps in flight.

A memory-bound kernel reaches the DRAM bandwidth only with enough bytes requested
and not yet returned (Little's law: bytes in flight = bandwidth x latency). Per
thread that is the number of independent loads issued before the first of them
is used; the compiler's scheduling decides it, so it is read from the SASS that
``nvdisasm`` prints for the cubin nvcc built, not from the source.

The scan is linear over each loop's own body and over the code outside loops: a load
(``LDG``) is pending from its issue until an instruction reads or overwrites one
of the registers it writes (where the hardware's scoreboard makes the thread
wait). The figure of a region is the largest number of loads pending at once.
Pending loads are dropped at every label, so a load used in another basic block
is not counted with the loads after it: the scan can under-count, never over-count.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

_FUNCTION = re.compile(r"^\.text\.(\S+):\s*$")
_LABEL = re.compile(r"^\.L_x_\d+:\s*$")
_INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
_PREDICATE = re.compile(r"^@!?U?P[T\d]\s+")
_REGISTER = re.compile(r"(?<![A-Z0-9_])R(\d+)(?:\.(64|128))?\b")
_NO_DESTINATION = ("ST", "RED", "BRA", "BAR", "EXIT", "RET", "CALL", "JMP", "BSYNC", "BSSY",
                   "WARPSYNC", "NOP", "DEPBAR", "MEMBAR", "FENCE", "ERRBAR", "CCTL")


@dataclass(frozen=True)
class Instruction:
    address: int
    opcode: str
    operands: tuple[str, ...]

    @property
    def is_global_load(self) -> bool:
        return self.opcode.startswith("LDG")

    @property
    def load_bytes(self) -> int:
        """Bytes one thread's global load moves (LDG.E.128: 16; sm_100's LDG.E.ENL2.256: 32)."""
        parts = self.opcode.split(".")
        for width, size in (("256", 32), ("128", 16), ("64", 8), ("U16", 2), ("S16", 2),
                            ("U8", 1), ("S8", 1)):
            if width in parts:
                return size
        return 4

    @property
    def is_pair(self) -> bool:
        """sm_100's 32-byte accesses (ENL2): two register operands of 4 registers each, the
        destinations of a load (LDG.E.ENL2.256 R4, R8, [...]) or the data of a store."""
        return "ENL2" in self.opcode.split(".")

    def _registers(self, operands: tuple[str, ...], wide: int = 1) -> set[int]:
        regs: set[int] = set()
        for operand in operands:
            for m in _REGISTER.finditer(operand):
                count = {"64": 2, "128": 4}.get(m.group(2) or "", wide)
                regs.update(range(int(m.group(1)), int(m.group(1)) + count))
        return regs

    def written(self) -> set[int]:
        if not self.operands or self.opcode.startswith(_NO_DESTINATION):
            return set()
        if self.is_pair:
            return self._registers(self.operands[:2], 4)
        wide = self.load_bytes // 4 if self.is_global_load else 1
        return self._registers(self.operands[:1], max(wide, 1))

    def read(self) -> set[int]:
        if self.opcode.startswith(_NO_DESTINATION):
            return self._registers(self.operands, 4 if self.is_pair else 1)
        return self._registers(self.operands[2 if self.is_pair else 1:])


@dataclass(frozen=True)
class Region:
    """A loop body, or the straight-line code of a kernel outside its loops."""

    first: int  # address of the first instruction
    last: int  # address of the last one (a loop's backward branch)
    is_loop: bool
    loads: int  # global loads in the region
    vector_loads: int  # of those, 16-byte (or sm_100's 32-byte) loads
    peak_loads_in_flight: int
    peak_bytes_in_flight: int  # per thread
    instructions: int = 0  # in the region (a loop's body once)
    mufu: int = 0  # of those, special-function (MUFU) instructions


def parse_functions(text: str) -> dict[str, list[Instruction | str]]:
    """nvdisasm -c output -> per kernel, its instructions and its labels in order."""
    functions: dict[str, list[Instruction | str]] = {}
    current: list[Instruction | str] | None = None
    for line in text.splitlines():
        if m := _FUNCTION.match(line):
            current = functions.setdefault(m.group(1), [])
        elif current is None:
            continue
        elif _LABEL.match(line):
            current.append(line.strip().rstrip(":"))
        elif m := _INSTRUCTION.match(line):
            body = _PREDICATE.sub("", m.group(2))
            opcode, _, rest = body.partition(" ")
            operands = tuple(o.strip() for o in rest.split(",") if o.strip())
            current.append(Instruction(int(m.group(1), 16), opcode, operands))
    return functions


def _labels(body: list[Instruction | str]) -> dict[str, int]:
    """Label -> address of the instruction after it."""
    found: dict[str, int] = {}
    pending: list[str] = []
    for item in body:
        if isinstance(item, str):
            pending.append(item)
        else:
            for label in pending:
                found[label] = item.address
            pending = []
    return found


def loops(body: list[Instruction | str]) -> list[tuple[int, int]]:
    """(first, last) address of every loop: a branch back to an earlier address."""
    labels = _labels(body)
    found = []
    for item in body:
        if isinstance(item, Instruction) and item.opcode.startswith("BRA") and item.operands:
            target = item.operands[-1]
            m = re.search(r"\(([.\w]+)\)", target)
            address = labels.get(m.group(1)) if m else None
            if address is None and (h := re.search(r"0x([0-9a-f]+)", target)):
                address = int(h.group(1), 16)
            if address is not None and address <= item.address:
                found.append((address, item.address))
    return found


def _scan(items: list[Instruction | str], first: int, last: int, is_loop: bool) -> Region:
    pending: list[tuple[set[int], int]] = []  # (registers written, bytes)
    loads = vector = peak = peak_bytes = instructions = mufu = 0
    for item in items:
        if isinstance(item, str):
            pending = []
            continue
        instructions += 1
        mufu += item.opcode == "MUFU" or item.opcode.startswith("MUFU.")
        touched = item.read() | item.written()
        pending = [p for p in pending if not (p[0] & touched)]
        if item.is_global_load:
            loads += 1
            vector += item.load_bytes >= 16
            pending.append((item.written(), item.load_bytes))
            peak = max(peak, len(pending))
            peak_bytes = max(peak_bytes, sum(b for _, b in pending))
    return Region(first, last, is_loop, loads, vector, peak, peak_bytes, instructions, mufu)


def regions(body: list[Instruction | str]) -> list[Region]:
    """Each loop's own body (the loops nested in it left out), then the code
    outside every loop, scanned."""
    spans = sorted(set(loops(body)))
    found = []
    for first, last in spans:
        nested = [o for o in spans if o != (first, last) and first <= o[0] and o[1] <= last]
        own = [i for i in _between(body, first, last)
               if isinstance(i, str) or not any(a <= i.address <= b for a, b in nested)]
        found.append(_scan(own, first, last, True))
    outside = [i for i in body if isinstance(i, str) or
               not any(a <= i.address <= b for a, b in spans)]
    addresses = [i.address for i in body if isinstance(i, Instruction)]
    found.append(_scan(outside, addresses[0] if addresses else 0,
                       addresses[-1] if addresses else 0, False))
    return found


def _between(body: list[Instruction | str], first: int, last: int) -> list[Instruction | str]:
    """The items from the instruction at `first` to the one at `last`, labels inside kept."""
    out: list[Instruction | str] = []
    inside = False
    for item in body:
        if isinstance(item, Instruction):
            inside = first <= item.address <= last
            if inside:
                out.append(item)
        elif inside:
            out.append(item)
    return out


def round_trips(body: list[Instruction | str]) -> int:
    """Dependent trips to memory a thread makes through `body` in program order: a global load
    issued after the thread waited on an earlier load (read or overwrote one of its registers)
    starts a new trip; loads issued with no wait between them share one. Labels do not end a
    trip here (a forward branch leaves its loads in flight), so for straight-line code, such as
    a kernel whose row is cached in registers, this is the chain of DRAM latencies one row pays.
    A loop's body is counted once, whatever its trip count."""
    pending: list[set[int]] = []
    trips, waited = 0, True
    for item in body:
        if isinstance(item, str):
            continue
        touched = item.read() | item.written()
        if any(p & touched for p in pending):
            waited = True
            pending = [p for p in pending if not (p & touched)]
        if item.is_global_load:
            trips += waited
            waited = False
            pending.append(item.written())
    return trips


# sm_100's packed FP32 opcodes: two lanes an instruction (templates/row_helpers.mustache's
# add2, mul2, fma2, sub2 on a B200).
PACKED_FP32 = ("FFMA2", "FMUL2", "FADD2")


def count(body: list[Instruction | str], opcode: str) -> int:
    """Instructions of `body` whose opcode is `opcode` or starts with `opcode.` (MUFU: every
    MUFU.EX2, MUFU.RCP, ...)."""
    return sum(1 for i in body if isinstance(i, Instruction)
               and (i.opcode == opcode or i.opcode.startswith(opcode + ".")))


def find_nvdisasm() -> str | None:
    """nvdisasm from PATH, CUDA_HOME, or the copy Triton (a dependency of torch) carries."""
    if found := shutil.which("nvdisasm"):
        return found
    candidates = [Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin" / "nvdisasm"]
    try:
        import triton  # noqa: PLC0415 - optional, only for its bundled binary

        candidates.append(Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "nvdisasm")
    except ImportError:
        pass
    return next((str(c) for c in candidates if c.is_file() and os.access(c, os.X_OK)), None)


def disassemble(cubin: Path, nvdisasm: str | None = None) -> str:
    tool = nvdisasm or find_nvdisasm()
    if tool is None:
        raise FileNotFoundError("nvdisasm not found (PATH, CUDA_HOME/bin, or triton's package)")
    return subprocess.run([tool, "-c", str(cubin)], capture_output=True, text=True,
                          check=True).stdout
