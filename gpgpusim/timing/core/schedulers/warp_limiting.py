"""``warp_limiting:P:N``: static warp limiting (GPGPU-Sim ``swl_scheduler``).

Greedy-then-oldest over a window of at most ``N`` warps: the warp that issued last, then the
``N`` oldest warps of the scheduler (by dynamic warp id) that are not waiting.  The warps
outside the window do not issue this cycle, which caps how many warps compete for the L1D
(static warp limiting, as in cache-conscious wavefront scheduling studies).  GPGPU-Sim accepts
only the greedy-then-oldest prioritisation, ``P`` = 2 (its ``SCHEDULER_PRIORITIZATION_GTO``),
and ``N`` up to the warps per core.

"Waiting" is GPGPU-Sim's ``shd_warp_t::waiting()`` (:func:`.base.warp_waiting`): GPGPU-Sim's
sort puts such warps behind the others, so they do not take places in the window.  Its sort
also clears a fence whose writes have drained (and invalidates the L1D) while ordering; here
the scheduler does that when it examines the warp, in the same cycle for every warp in the
window.  Warps with an empty I-buffer or a scoreboard stall are not waiting: they keep their
place in the window, as in GPGPU-Sim.
"""

from __future__ import annotations

from typing import Any

from .base import Policy, int_field, warp_waiting

#: GPGPU-Sim's ``scheduler_prioritization_type`` value for greedy-then-oldest, the only one
#: its ``swl_scheduler`` implements
PRIORITY_GTO = 2


class WarpLimiting(Policy):
    def __init__(self, limit: int) -> None:
        super().__init__()
        self.pure = True
        self.limit = limit

    @staticmethod
    def from_args(args: list[str]) -> WarpLimiting:
        prio = int_field(args, 0, -1, "warp_limiting's prioritisation")
        if prio != PRIORITY_GTO:
            raise ValueError(f"-gpgpu_scheduler warp_limiting:{prio}:...: only prioritisation "
                             f"{PRIORITY_GTO} (greedy then oldest) is implemented, as in GPGPU-Sim")
        limit = int_field(args, 1, -1, "warp_limiting's warp limit")
        if limit < 1:
            raise ValueError("-gpgpu_scheduler warp_limiting:2:N needs a warp limit N of at least 1")
        return WarpLimiting(limit)

    def order(self, warps: list[int], table: Any) -> list[int]:
        ready = sorted((s for s in warps if not warp_waiting(table[s])), key=lambda s: table[s].dyn)
        window = ready[:self.limit]
        last = self.last
        if last >= 0 and last in warps:
            if last in window:
                window.remove(last)
            window.insert(0, last)
        return window
