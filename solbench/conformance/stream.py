"""The harness's stream of random inputs: seeded once per evaluation, then drawn workload after
workload in the order of workload.jsonl (eval_driver.py: set_seed before the workload loop;
core/bench/correctness.py, set_seed: Python's random, torch's CPU and CUDA generators).

solbench keeps one process per workload, so the stream is carried between them: a worker starts
from the state the previous one ended in and hands its own end state back. A workload that is
not evaluated (not among --workloads, over the budget, or its process died) is replayed: its
inputs are drawn, and its reference run, round after round as the harness would for a solution
that passes, and nothing else.
"""

from __future__ import annotations

import base64
import random
from dataclasses import dataclass
from typing import Any, Callable

import torch

SEED = 200  # BenchmarkConfig.seed's default


@dataclass(frozen=True)
class StreamState:
    """Where the stream is: every generator the harness seeds, as JSON-safe data."""

    torch_cpu: str  # base64 of torch.get_rng_state()
    torch_cuda: str | None  # base64 of torch.cuda.get_rng_state(); None: CUDA never drew
    python: list[Any]  # random.getstate(), as lists

    def to_json(self) -> dict[str, Any]:
        return {"torch_cpu": self.torch_cpu, "torch_cuda": self.torch_cuda,
                "python": self.python}

    @staticmethod
    def from_json(d: dict[str, Any]) -> "StreamState":
        return StreamState(d["torch_cpu"], d.get("torch_cuda"), d["python"])


def _b64(t: torch.Tensor) -> str:
    return base64.b64encode(bytes(t.tolist())).decode("ascii")


def _tensor(text: str) -> torch.Tensor:
    return torch.tensor(list(base64.b64decode(text)), dtype=torch.uint8)


def _cuda_up() -> bool:
    return torch.cuda.is_available() and torch.cuda.is_initialized()


def seed(value: int = SEED) -> None:
    """Seed as the harness does, once, before the first workload."""
    random.seed(value)
    torch.manual_seed(value)  # seeds every CUDA device too, lazily
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(value)


def capture() -> StreamState:
    version, internal, gauss = random.getstate()
    cuda = _b64(torch.cuda.get_rng_state()) if _cuda_up() else None
    return StreamState(_b64(torch.get_rng_state()), cuda, [version, list(internal), gauss])


def restore(state: StreamState) -> None:
    version, internal, gauss = state.python
    random.setstate((version, tuple(internal), gauss))
    torch.set_rng_state(_tensor(state.torch_cpu))
    if not torch.cuda.is_available():
        return
    if state.torch_cuda is None:  # nothing was drawn on the GPU yet: it is still at the seed
        torch.cuda.manual_seed_all(SEED)
    else:
        torch.cuda.set_rng_state(_tensor(state.torch_cuda))


def start(state: StreamState | None) -> None:
    """Begin a workload: the first one seeds, a later one continues the stream."""
    if state is None:
        seed()
    else:
        restore(state)


def replay(rounds: int, draw: Callable[[], list[Any]], reference: Callable[..., Any]) -> None:
    """Advance the stream past one workload that is not evaluated here: each round draws its
    inputs and runs the reference on them (a reference may draw too), as the harness does for
    a passing solution. Where the harness would stop (inputs or reference fail), so does this."""
    for _ in range(rounds):
        try:
            inputs = draw()
            with torch.no_grad():
                reference(*inputs)
        except Exception:  # noqa: BLE001 - the harness stops drawing for this workload here
            return
