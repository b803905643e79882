"""The harness's reward-hack checks, each status naming its rule.

Mirrors SOL-ExecBench v1.0.2 core/bench/reward_hack.py as eval_driver.py uses it:
- integrity: the functions that generate inputs, compare and time may not be replaced by the
  solution (checked after the solution is imported and after its first call);
- lazy outputs: every output is exactly a torch.Tensor (a subclass, nn.Parameter included, is
  not), checked in round 0;
- monkey patch: torch.cuda.Event.elapsed_time is the function it was at start-up, checked
  before timing;
- thread injection: no more Python threads after the solution's calls than after its first.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import torch


class RewardHack(Exception):
    """A reward-hack pattern (-> REWARD_HACK); rule names the check that found it."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


def _elapsed_time() -> Any:
    try:
        return torch.cuda.Event.elapsed_time
    except AttributeError:  # pragma: no cover - a torch without CUDA events
        return None


_ELAPSED_TIME = _elapsed_time()  # captured when solbench's checks load, before any solution


@dataclass(frozen=True)
class Snapshot:
    """The identity of each function the evaluation relies on, taken before the solution loads."""

    ids: dict[str, int]

    @staticmethod
    def take(modules: list[ModuleType], names: list[str]) -> "Snapshot":
        ids = {}
        for m in modules:
            for n in names:
                if hasattr(m, n):
                    ids[f"{m.__name__}.{n}"] = id(getattr(m, n))
        return Snapshot(ids)

    def check(self, modules: list[ModuleType]) -> None:
        by_name = {m.__name__: m for m in modules}
        for qualified, expected in self.ids.items():
            mod, _, name = qualified.rpartition(".")
            current = getattr(by_name[mod], name, None)
            if current is None or id(current) != expected:
                raise RewardHack("integrity", f"evaluation integrity violated: '{qualified}' "
                                 "was replaced by the solution")


def evaluation_modules() -> list[ModuleType]:
    from . import inputs, rules, runner, timing

    return [inputs, rules, runner, timing]


CRITICAL = ["generate_inputs", "make_tensor", "rand_tensor", "normalize_outputs",
            "compare_outputs", "compare_output", "compare_values", "time_calls",
            "evaluate_workload", "solution_outputs"]


def snapshot() -> Snapshot:
    return Snapshot.take(evaluation_modules(), CRITICAL)


def check_integrity(snap: Snapshot) -> None:
    snap.check(evaluation_modules())


def check_plain_tensors(outputs: list[Any], names: list[str]) -> None:
    for name, t in zip(names, outputs):
        if type(t) is not torch.Tensor:
            raise RewardHack("lazy-outputs", f"output '{name}' is a {type(t).__name__}, not "
                             "exactly a torch.Tensor (the harness rejects subclasses)")


def check_monkey_patch() -> None:
    if _ELAPSED_TIME is not None and _elapsed_time() is not _ELAPSED_TIME:
        raise RewardHack("monkey-patch", "torch.cuda.Event.elapsed_time was replaced")


def thread_count() -> int:
    return threading.active_count()


def check_threads(before: int, after: int) -> None:
    if after > before:
        raise RewardHack("thread-injection", f"the solution started threads: {after} Python "
                         f"threads after its calls, {before} after its first")
