"""Screening a launch for CTA sampling inside the first wave (``-gpgpusim_sampling_cta_interval
auto``, the default under ``-gpgpusim_sampling cta|all``; :class:`~.cta_sampling.IntervalSampling`).

Interval sampling times the start of the first wave only and projects the rest of the grid from
it.  That is sound when what it cannot see looks like what it saw.  Before such a launch is
timed, :func:`screen_launch` runs its whole grid once on the functional engine, on a snapshot of
device memory that is restored afterwards (the timing run then executes the grid for real), and
notes per CTA its warp instructions and the 128-byte lines of global memory it reads or writes.
The launch is sampled inside its first wave only when (:meth:`Screen.verdict`):

* **the CTAs do the same work**: the coefficient of variation of their warp instructions is at
  most :data:`MAX_SPREAD` (a triangular loop, or early CTAs that find the answer, fail);
* **later CTAs share data with earlier ones no more than the first wave's do**: per CTA, the
  share of its lines that a CTA of lower id (issued before it) touched too; the mean over the
  CTAs after the first wave may exceed the first wave's by at most :data:`MAX_SHARED_GAIN`.  A
  kernel whose later waves read what earlier waves left in L2 fails (the first wave finds none
  of its data there); one whose CTAs share data within a wave as much as across waves (a tiled
  matmul: every CTA of a row reads the same rows of A) passes.

While the launch is timed, :meth:`Screen.rest_like` keeps the cut back until the instructions a
CTA has left look like those measured: the instructions (pcs) CTA 0's first warp ran over the
part of its run that the interval measured against those it ran after it, at most
:data:`MAX_PC_DISTANCE` apart (total variation); and until that warp's global accesses after
the part measured come back to lines it touched before no more often than those in it did
(:data:`MAX_REUSE_GAIN`).  A kernel with a late phase of other instructions, or a loop that
wraps around its array and then finds it in the caches, is then measured into that phase, or
simulated whole.

The screening run costs about 1.4 functional runs of the grid (``docs/PERFORMANCE.md``: 29.7 s
of CPU for a 1024x1024 matmul whose functional run takes 21.8 s).  It is not run twice: the
screen keeps the run's counts and the bytes it wrote (:attr:`Screen.final`), and a launch cut
inside its first wave takes them at the cut instead of running its rest on the functional
engine (unless the kernel prints, or wrote more than :data:`MAX_KEPT_BYTES`).  Capacity is not modelled: data shared
across waves counts even where the L2 would have evicted it, so the screen errs towards
simulating in detail.
"""

from __future__ import annotations

import dataclasses
from array import array
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from gpgpusim.errors import CudaError, Err
from gpgpusim.functional import decode as dec
from gpgpusim.functional import engine
from gpgpusim.functional.memory import WINDOW_SHIFT
from gpgpusim.ptx import ir


if TYPE_CHECKING:
    from gpgpusim.functional.memory import GlobalMemory, WrittenState
    from gpgpusim.functional.state import Exec

#: the CTAs' warp instructions may vary by this coefficient of variation at most
MAX_SPREAD = 0.10
#: later CTAs' mean shared share may exceed the first wave's by this much at most
MAX_SHARED_GAIN = 0.10
#: distributions of pcs (total variation) of the measured part of a CTA and of its rest
MAX_PC_DISTANCE = 0.10
#: the share of the first warp's accesses after the part measured that come back to lines it
#: touched before may exceed that share in the part measured by this much at most
MAX_REUSE_GAIN = 0.10
#: lines the first warp's reuse record remembers at most (a warp streaming over 32 MB: the set
#: of them stays ~20 MB)
MAX_LINES = 1 << 18
#: pcs of the first warp kept at most (an even sample of a longer run)
MAX_PCS = 1 << 20
#: the screening run's writes are kept for the timed launch (:attr:`Screen.final`) when the
#: allocations it wrote hold at most this many bytes (kept: their contents and a bit per byte),
#: so that a launch writing a large part of device memory does not hold a second copy of it
#: while it is timed
MAX_KEPT_BYTES = 256 << 20
#: footprint granule: the caches' 128-byte line
LINE_SHIFT = 7
#: a footprint key is ``line << CTA_BITS | CTA id``
CTA_BITS = 20
_CTA_MASK = np.uint64((1 << CTA_BITS) - 1)


class FootprintRecorder:
    """The screening run's ``ex.hooks.trace`` (the engine calls :meth:`issue`, :meth:`issue1`
    and :meth:`access`, as it calls the trace feed's recorder): warp instructions per warp,
    the distinct (line, CTA) keys of the chunk's global accesses, and with ``keep_pcs`` the pcs
    the chunk's first warp issued."""

    __slots__ = ("winsn", "keys", "mem_on", "pcs", "_stride", "_n", "reuse", "_lines", "_rstride", "_rn")

    def __init__(self, ex: Exec, keep_pcs: bool) -> None:
        self.winsn = np.zeros(ex.W, dtype=np.int64)
        self.keys: list[np.ndarray] = []
        self.mem_on = False
        #: every ``_stride``-th pc the first warp issued (the stride doubles when the array
        #: reaches :data:`MAX_PCS`, so a long warp keeps an even sample of its run)
        self.pcs: array[int] | None = array("i") if keep_pcs else None
        self._stride = 1
        self._n = 0                 # the first warp's instructions so far
        #: with ``keep_pcs``, per global access of the first warp (an even sample of them, as
        #: the pcs): its place in the warp's run (instructions issued), the lines it touched,
        #: and how many of those the warp had touched before (:meth:`Screen.rest_like`)
        self.reuse: array[int] | None = array("q") if keep_pcs else None
        self._lines: set[int] = set()
        self._rstride = 1
        self._rn = 0

    def issue(self, ex: Exec, p: int, G: np.ndarray, masks: Any, sel: Any, esel: Any, mem: bool) -> None:
        self.winsn[G] += 1
        self.mem_on = mem
        if self.pcs is not None and G[0] == 0:      # (G is ascending)
            self._note(p)

    def issue1(self, w: int, p: int, mask: int, emask: int, mem: bool) -> None:
        self.winsn[w] += 1
        self.mem_on = mem
        if self.pcs is not None and w == 0:
            self._note(p)

    def _note(self, p: int) -> None:
        pcs = self.pcs
        assert pcs is not None
        n = self._n
        self._n = n + 1
        if n % self._stride:
            return
        pcs.append(p)
        if len(pcs) >= MAX_PCS:         # keep the multiples of twice the stride
            self.pcs = pcs[::2]
            self._stride *= 2

    def _note_reuse(self, a: np.ndarray) -> None:
        """A global access of the first warp (its lanes' addresses ``a``); none once the warp
        has touched :data:`MAX_LINES` lines (the rest of its run is then not compared)."""
        if len(self._lines) >= MAX_LINES:
            return
        lines = set((a >> np.uint64(LINE_SHIFT)).tolist())
        before = len(lines & self._lines)
        self._lines |= lines
        n = self._rn
        self._rn = n + 1
        if n % self._rstride:
            return
        reuse = self.reuse
        assert reuse is not None
        reuse.extend((self._n, len(lines), before))
        if len(reuse) >= 3 * MAX_PCS:       # keep every other access
            kept = np.asarray(reuse, dtype=np.int64).reshape(-1, 3)[::2].ravel()
            self.reuse = array("q", kept.tolist())
            self._rstride *= 2

    def access(self, ex: Exec, space: str, addrs: np.ndarray, lanes: np.ndarray, size: int,
               is_store: bool, is_atomic: bool) -> None:
        if not self.mem_on or addrs.size == 0 or space not in ("global", "generic"):
            return
        a = addrs.astype(np.uint64)
        if space == "generic":
            g = (a >> WINDOW_SHIFT) == 0
            a, lanes = a[g], lanes[g]
        if self.reuse is not None:
            first = lanes < 32          # the chunk's first warp: CTA 0's first
            if first.any():
                self._note_reuse(a[first])
        cta = ex.cta_ids[ex.lane_cta[lanes]].astype(np.uint64)
        k = ((a >> np.uint64(LINE_SHIFT)) << np.uint64(CTA_BITS)) | cta
        if k.size > 1:      # neighbouring lanes mostly share a line: drop repeats (the chunk's keys are made unique at its end)
            keep = np.empty(k.size, dtype=bool)
            keep[0] = True
            np.not_equal(k[1:], k[:-1], out=keep[1:])
            k = k[keep]
        self.keys.append(k)


@dataclass
class Screen:
    """What the screening run found (see the module docstring)."""

    insn: np.ndarray            # warp instructions per CTA, by CTA id
    shared: np.ndarray          # per CTA: share of its lines a CTA of lower id touched (NaN: none)
    pcs: np.ndarray             # the pcs CTA 0's first warp issued, in order (an even sample)
    #: per global access of CTA 0's first warp (an even sample), in order: (instructions the
    #: warp had issued, lines the access touched, of those the lines it had touched before)
    reuse: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 3), dtype=np.int64))
    #: the warp instructions CTA 0's first warp issued
    first_warp_insn: int = 0
    #: the screening run itself, when the timed launch may take its result at the cut instead
    #: of running its rest (:func:`screen_launch`): its counts, and what it wrote
    trial: engine.LaunchChunks | None = None
    final: WrittenState | None = None

    def take_result(self) -> tuple[engine.LaunchChunks, WrittenState] | None:
        """The screening run and its writes (``trial``, ``final``), handed over once (the screen
        keeps neither after); None when it kept none."""
        trial, final = self.trial, self.final
        self.trial = self.final = None
        return None if trial is None or final is None else (trial, final)

    def verdict(self, wave: int) -> str | None:
        """None when the launch may be sampled inside its first wave of ``wave`` CTAs, else why not."""
        insn = self.insn.astype(np.float64)
        mean = float(insn.mean()) if insn.size else 0.0
        if mean <= 0:
            return "its CTAs issue no instructions"
        spread = float(insn.std()) / mean
        if spread > MAX_SPREAD:
            return (f"its CTAs do different work (warp instructions per CTA vary by {100 * spread:.0f} %, "
                    f"more than {100 * MAX_SPREAD:.0f} %)")
        first, rest = self.shared[:wave], self.shared[wave:]
        first, rest = first[~np.isnan(first)], rest[~np.isnan(rest)]
        if rest.size and first.size:
            a, b = float(first.mean()), float(rest.mean())
            if b - a > MAX_SHARED_GAIN:
                return (f"later CTAs touch data earlier ones touched ({100 * b:.0f} % of their lines, against "
                        f"{100 * a:.0f} % in the first wave): the first wave cannot show what they find in the caches")
        return None

    def rest_like(self, y0: float, y1: float) -> bool:
        """Whether CTA 0's first warp runs the same instructions, in the same proportions,
        after the part measured as in it, the part measured being from ``y0`` to ``y1`` warp
        instructions issued per CTA (as fractions of the CTAs' mean, the same part of the
        warp's run): the total-variation distance of the two distributions of pcs is at most
        :data:`MAX_PC_DISTANCE`.  (By pc, not by opcode: a second loop of the same opcodes
        but one load is a different phase.)"""
        per_cta = float(self.insn.mean()) if self.insn.size else 0.0
        if per_cta <= 0:
            return True                 # (no instructions: verdict() has refused the launch)
        pcs = self.pcs
        n = pcs.size
        i0, i1 = int(max(0.0, y0 / per_cta) * n), int(min(1.0, y1 / per_cta) * n)
        if i1 >= n:
            return True                 # nothing left to differ
        if i1 <= i0:
            return False
        m = int(pcs.max()) + 1
        a = np.bincount(pcs[i0:i1], minlength=m) / (i1 - i0)
        b = np.bincount(pcs[i1:], minlength=m) / (n - i1)
        if 0.5 * float(np.abs(a - b).sum()) > MAX_PC_DISTANCE:
            return False
        return self._reuse_like(y0 / per_cta, y1 / per_cta)

    def _reuse_like(self, f0: float, f1: float) -> bool:
        """Whether the global accesses of CTA 0's first warp after the part measured (the
        fractions ``f0`` to ``f1`` of its run) touch lines it touched before no more often than
        those in it did: the shares differ by at most :data:`MAX_REUSE_GAIN`.  A loop that
        comes back to the data it started on (a ring buffer, a sweep repeated) finds it in the
        caches then, and runs faster than the part measured, with the same instructions."""
        r = self.reuse
        if r.size == 0 or self.first_warp_insn <= 0:
            return True
        at = r[:, 0]
        n = self.first_warp_insn
        mid = (at >= f0 * n) & (at < f1 * n)
        rest = at >= f1 * n
        if not rest.any() or not mid.any():
            return True
        share_mid = r[mid, 2].sum() / max(1, r[mid, 1].sum())
        share_rest = r[rest, 2].sum() / max(1, r[rest, 1].sum())
        return float(share_rest - share_mid) <= MAX_REUSE_GAIN


def screen_launch(lc: engine.LaunchChunks, gmem: GlobalMemory) -> Screen | str:
    """Run the launch ``lc`` (prepared, not yet run) functionally on a snapshot of ``gmem``,
    restore memory, and return its :class:`Screen`, or why it could not be screened (a fault,
    or memory that cannot be put back: the kernel allocated or freed device memory).

    The screen keeps the run's counts and the bytes it wrote (``trial``, ``final``) unless the
    kernel prints (its printf output belongs to the timed run) or wrote more than
    :data:`MAX_KEPT_BYTES` or outside allocations: a launch cut inside its first wave then
    takes them instead of running its rest on the functional engine a second time
    (``KernelTrace.cut``)."""
    if lc.total >= 1 << CTA_BITS:
        return f"its grid of {lc.total} CTAs is too large to screen"
    calls = _external_calls(lc.prog)
    why = _runtime_call(calls)
    if why is not None:
        return why
    # a copy of the launch with its own counts, no printf and no per-line statistics, under
    # the same grid id (no new launch is numbered), in the engine's own chunks (the timing
    # feed's are smaller, which costs the functional engine time)
    trial = dataclasses.replace(lc, per=lc.per_full, stats=engine.KernelStats(kernel=lc.kernel), printf=_discard,
                                line_stats=None, pc_thread=None, pc_warp=None, pc_active=None,
                                pc_issued=set(), pc_generic={})
    insn = np.zeros(lc.total, dtype=np.int64)
    shared_n = np.zeros(lc.total, dtype=np.int64)
    lines_n = np.zeros(lc.total, dtype=np.int64)
    seen = np.zeros(0, dtype=np.uint64)     # lines touched by the chunks run so far
    pcs: Any = []
    reuse: Any = []
    first_warp_insn = 0
    current: list[FootprintRecorder] = []

    def recorder(ex: Exec) -> FootprintRecorder:
        r = FootprintRecorder(ex, keep_pcs=not current)
        current.append(r)
        return r

    saved = gmem.snapshot()
    try:
        try:
            for ex in engine.run_chunks(trial, recorder):
                r = current[-1]
                ids = ex.cta_ids
                insn[ids] += np.bincount(ex.warp_cta, weights=r.winsn, minlength=ex.ncta).astype(np.int64)
                if r.pcs is not None:
                    pcs = r.pcs
                    reuse, first_warp_insn = r.reuse, r._n
                keys = np.unique(np.concatenate(r.keys)) if r.keys else np.zeros(0, dtype=np.uint64)
                r.keys = []
                line = keys >> np.uint64(CTA_BITS)
                cta = (keys & _CTA_MASK).astype(np.int64)
                # keys sort by line, then CTA: a key is shared when an earlier chunk touched its
                # line or a CTA of lower id in this chunk did (the key before it has its line)
                sh = np.isin(line, seen)
                sh[1:] |= line[1:] == line[:-1]
                np.add.at(lines_n, cta, 1)
                np.add.at(shared_n, cta, sh.astype(np.int64))
                seen = np.union1d(seen, line)
        except Exception as e:  # noqa: BLE001 - the timing run reports the fault as it always does
            if saved.restorable():
                saved.restore()
            return f"its screening run failed ({type(e).__name__})"
        if not saved.restorable():      # (excluded above: only device-side malloc/free change it)
            raise CudaError(Err.Unknown, f"kernel {lc.kernel}: CTA sampling's screening run changed device "
                                         f"memory it cannot put back")
        prints = any(name == "vprintf" for name, _line in calls)
        final = None if prints else saved.written(MAX_KEPT_BYTES)
        saved.restore()
    finally:
        saved.close()
    with np.errstate(invalid="ignore", divide="ignore"):
        shared = np.where(lines_n > 0, shared_n / np.maximum(lines_n, 1), np.nan)
    return Screen(insn=insn, shared=shared, pcs=np.asarray(pcs, dtype=np.int64),
                  reuse=np.asarray(reuse, dtype=np.int64).reshape(-1, 3), first_warp_insn=first_warp_insn,
                  trial=trial if final is not None else None, final=final)


def _external_calls(prog: dec.Program) -> list[tuple[str, int]]:
    """(name, PTX line) of each call in ``prog`` of a function it does not define (the device
    runtime's: ``vprintf``, ``malloc``, ...)."""
    out = []
    for d in prog.insts:
        inst = d.inst
        if inst is None or inst.opcode != "call":
            continue
        target = dec.call_target(inst)
        if isinstance(target, ir.Label) and target.name not in prog.funcs:
            out.append((target.name, d.line))
    return out


def _runtime_call(calls: list[tuple[str, int]]) -> str | None:
    """Why a program making the external ``calls`` cannot run on trial (None when it can): a
    call of the device runtime other than ``vprintf`` or ``__assertfail`` (``malloc``, ``free``,
    a device-side launch) allocates or launches, which a memory snapshot cannot undo."""
    for name, line in calls:
        if name not in ("vprintf", "__assertfail"):
            return f"it calls {name} (line {line}), which a trial run could not undo"
    return None


def _discard(text: str) -> None:
    """The screening run's printf: its output is the timing run's to print."""
