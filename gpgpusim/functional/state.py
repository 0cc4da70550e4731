"""Execution state of a group of resident CTAs: registers, memories, SIMT stacks, barriers.

GPGPU-Sim counterparts: ``ptx_thread_info`` (registers, local memory), ``ptx_cta_info`` /
shared memory per CTA (C227), ``simt_stack`` (C089), barrier bookkeeping of
``shader_core_ctx``/``barrier_set_t``.

Lane layout: CTA ``c`` of the group (``c`` = 0..ncta-1, GPGPU-Sim CTA id ``cta_ids[c]``) owns
lanes ``[c * Wc * 32, (c + 1) * Wc * 32)`` where ``Wc`` = warps per CTA; thread ``t`` of the CTA
is lane ``c * Wc * 32 + t``; lanes past the CTA's thread count are never active.

Address windows (C230): local and shared generic addresses live above the 47-bit user space
of the host, so they can collide neither with the global heap (0xC0000000 up) nor with host
addresses of managed memory: shared window ``1 << 48``, local window ``2 << 48``, each 4 GiB.
Shared-space addresses (``ld.shared``, ``mov r, smem_var``) are offsets in the CTA's shared
memory; local-space addresses are offsets in the thread's local memory; ``.const`` variables
live in global memory, so const-space address == global address.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable

import numpy as np

from gpgpusim.errors import CudaError, Err

from . import decode as dec
from . import memcheck
from .loader import LoadedModule
from .memory import WINDOW_SHIFT, GlobalMemory, MemoryFault

FULL = 0xFFFFFFFF
SHARED_WINDOW = 1 << int(WINDOW_SHIFT)
LOCAL_WINDOW = 2 << int(WINDOW_SHIFT)
WINDOW_SIZE = 1 << 32
_SH = {1: 0, 2: 1, 4: 2, 8: 3, 16: 4}
_GLOBALTIMER_BASE_NS = time.time_ns() - time.perf_counter_ns()


def _memcheck_mode(options: Any) -> int:
    mode = memcheck.mode_of(options)
    memcheck.enable(mode)
    return mode


def _opt(options: Any, name: str, default: Any) -> Any:
    if options is None:
        return default
    try:
        v = options.get(name)
    except (AttributeError, KeyError):
        return default
    return default if v is None else v


class InstructionLimitReached(BaseException):
    """Raised out of the functional engine when the run's thread instructions reach
    ``-gpgpu_max_insn`` (functional mode, see :class:`Progress`).  A BaseException, like
    KeyboardInterrupt, so that no ``except Exception`` between the engine and the runtime's
    functional GPU takes it for a kernel fault."""


class Progress:
    """The functional GPU's view into the engine: what the run has executed so far (read by the
    liveness line) and the stop limits ``-gpgpu_max_insn`` and ``-gpgpu_max_cta``, enforced
    exactly.

    The runtime's functional GPU (``gpgpusim.device.funcrun``) makes one per run and sets
    :data:`active` to it while the engine executes a kernel; every :class:`Exec` (chunk of CTAs)
    created meanwhile registers as :attr:`current` and, when closed, adds its counts to
    ``base`` / ``warp_base`` (so they hold everything that ran before the current chunk).

    * ``max_cta``: CTAs are given to chunks in CTA order; once ``ctas_started`` reaches the
      limit, the CTAs of a chunk beyond it start finished (they execute nothing), as GPGPU-Sim
      issues no CTA past the limit.
    * ``max_insn``: the engine's drivers consult :meth:`Exec.watchdog` once the issue steps pass
      ``Exec.step_limit``, which is the first step at which the limit can have been reached (a
      step executes at most ``Exec.N`` thread instructions); the step that reaches it raises
      :class:`InstructionLimitReached` right after it executed, as GPGPU-Sim's cycle loop stops
      once ``gpu_tot_sim_insn + gpu_sim_insn >= max_insn`` -- unless that step was the kernel's
      last, which then completes normally (the stop comes with the next kernel).

    Other threads only read the counts.
    """

    __slots__ = ("base", "ctas_started", "current", "max_cta", "max_insn", "warp_base")

    def __init__(self, max_insn: int = 0, max_cta: int = 0) -> None:
        self.max_insn = max_insn
        self.max_cta = max_cta
        self.base = 0               # thread instructions of the closed chunks
        self.warp_base = 0          # warp instructions of the closed chunks
        self.ctas_started = 0       # CTAs given to chunks (not counting those past max_cta)
        self.current: Exec | None = None

    def thread_insn(self) -> int:
        """Thread instructions executed so far in this run (any thread may call it)."""
        ex = self.current
        return self.base + (ex.thread_insn if ex is not None else 0)


#: the :class:`Progress` of the functional kernel being executed, None otherwise (performance
#: mode's trace feed and the live feed run the engine without one)
active: Progress | None = None


#: special registers the timing model supplies in performance mode with the live feed (the
#: SIMT-core cycle, the core and the hardware warp slot; GPGPU-Sim ``ptx_thread_info::get_builtin``)
HW_SPECIALS = frozenset(("%clock", "%clock64", "%smid", "%warpid"))


class LaneShape:
    """The lane and warp index arrays of one chunk shape: ``ncta`` CTAs of ``T`` threads in
    ``Wc`` warps each, CTA ``c``'s shared memory at ``c * smem_stride``.  They depend on the
    shape alone, so every :class:`Exec` of that shape shares one read-only copy
    (:func:`lane_shape`): a chunk of 65,536 threads spent ~3 ms setting them up.  Nothing writes
    them (a write raises: the arrays are not writeable); ``exited`` is the template each Exec
    copies.  ``specials`` holds the special registers the shape decides (see
    :meth:`Exec.special`), at most :data:`_SPECIALS_PER_SHAPE` of them."""

    __slots__ = ("all_lanes", "lane_cta", "lane_t", "warp_ids", "warp_cta", "lane_smem_base",
                 "lane_smem_base32", "valid_lanes", "init_masks", "exited", "specials")

    def __init__(self, ncta: int, Wc: int, T: int, smem_stride: int) -> None:
        W = ncta * Wc
        N = W * 32
        self.all_lanes = np.arange(N, dtype=np.int64)
        self.lane_cta = self.all_lanes // (Wc * 32)
        self.lane_t = self.all_lanes % (Wc * 32)
        self.warp_ids = np.arange(W, dtype=np.int64)
        self.warp_cta = self.warp_ids // Wc
        self.lane_smem_base = self.lane_cta * smem_stride
        self.lane_smem_base32 = self.lane_smem_base.astype(np.int32) if ncta * smem_stride < (1 << 31) else None
        valid = self.lane_t < T
        #: each warp's mask of threads that exist (bit i: lane i; a partial last warp has fewer)
        self.init_masks = np.packbits(valid.reshape(W, 32), axis=1, bitorder="little").view("<u4").ravel() \
            .astype(np.int64)
        self.valid_lanes = np.flatnonzero(valid)
        self.exited = ~valid
        self.specials: dict[tuple[Any, ...], np.ndarray] = {}
        for name in self.__slots__:
            a = getattr(self, name)
            if isinstance(a, np.ndarray):
                a.flags.writeable = False


#: the shapes kept (most recently used last): a launch's full chunks and its last, smaller one,
#: for a few kernels; a full chunk's shape holds ~3 MB, its special registers 256 KB each
_LANE_SHAPES: dict[tuple[int, int, int, int], LaneShape] = {}
_SHAPES_KEPT = 4
_SPECIALS_PER_SHAPE = 8

#: special registers whose lane values depend on the launch's shape alone (``%ctaid``: and on
#: which CTAs the chunk holds); :meth:`Exec.special` shares them, read-only, between the Execs
#: of one shape, as :class:`LaneShape` does the lane indices (a chunk of 65,536 threads spent
#: ~0.6 ms on each)
_SHAPE_SPECIALS = frozenset(("%tid", "%ntid", "%nctaid", "%ctaid", "%laneid", "%warpid"))


def lane_shape(ncta: int, Wc: int, T: int, smem_stride: int) -> LaneShape:
    """The shared :class:`LaneShape` of a chunk shape (the last :data:`_SHAPES_KEPT` shapes
    used are kept, so what is kept stays a few MB whatever the program launches)."""
    key = (ncta, Wc, T, smem_stride)
    got = _LANE_SHAPES.pop(key, None)
    if got is None:
        got = LaneShape(ncta, Wc, T, smem_stride)
        while len(_LANE_SHAPES) >= _SHAPES_KEPT:
            del _LANE_SHAPES[next(iter(_LANE_SHAPES))]      # the least recently used
    _LANE_SHAPES[key] = got
    return got


class _RegFile(dict):
    """``Exec.R``: slot -> numpy array of one element per lane, created zeroed on first access
    (so a launch costs nothing per register it never touches)."""

    __slots__ = ("dtypes", "n")

    def __init__(self, dtypes: list[np.dtype], n: int) -> None:
        super().__init__()
        self.dtypes = dtypes
        self.n = n

    def __missing__(self, slot: int) -> np.ndarray:
        v = self[slot] = np.zeros(self.n, dtype=self.dtypes[slot])
        return v


class ExecHooks:
    """How a running :class:`Exec` reaches the world outside the engine, in one place (its
    owner sets them; the engine only calls them):

    * ``printf``: where device ``printf`` text goes (the application's stdout);
    * ``trace``: the timing model's recorder (``gpgpusim.timing.recorder.TraceRecorder``: the trace
      and live feeds of performance mode), told of every issue and memory access; None otherwise;
    * ``hw``: the live feed's hardware placement (``gpgpusim.timing.live``), which supplies the
      special registers whose values are the timing model's (:data:`HW_SPECIALS`); None
      otherwise;
    * ``device_launches``: where ``cudaLaunchDevice`` queues child grids
      (``functional.cdp.DeviceLaunch``; the launch's ``KernelStats`` list, see
      ``engine.chunk_exec``)."""

    __slots__ = ("printf", "trace", "hw", "device_launches")

    def __init__(self, printf: Callable[[str], Any]) -> None:
        self.printf = printf
        self.trace: Any = None
        self.hw: Any = None
        self.device_launches: list[Any] = []


class Exec:
    """Registers, memories and SIMT stacks of the CTAs executed together."""

    def __init__(self, prog: dec.Program, lm: LoadedModule, gmem: GlobalMemory,
                 grid: tuple[int, int, int], block: tuple[int, int, int], dyn_smem: int,
                 params: bytes, cta_ids: list[int], *, printf: Callable[[str], None] | None = None,
                 options: Any = None, gridid: int = 1) -> None:
        self.prog = prog
        self.lm = lm
        self.gmem = gmem
        self.grid = grid
        self.block = block
        self.options = options
        self.gridid = gridid
        #: how the run reaches the world outside the engine (:class:`ExecHooks`)
        self.hooks = ExecHooks(printf or (lambda s: (sys.stdout.write(s), sys.stdout.flush())))
        #: launch calls executed so far per (CTA, warp in CTA) (``cdp.DeviceLaunch.issue``)
        self.cdp_issues: dict[tuple[int, int], int] = {}
        self.cta_ids = np.asarray(cta_ids, dtype=np.int64)
        self.ncta = len(cta_ids)
        self.T = block[0] * block[1] * block[2]
        self.Wc = (self.T + 31) // 32
        self.W = self.ncta * self.Wc
        self.N = self.W * 32
        self.dense = self.T % 32 == 0
        N = self.N
        # registers, allocated on first use (a kernel that reaches a huge module touches few
        # of its thousands of registers per launch); a register never written reads zero
        self.R = _RegFile(prog.slot_dtypes, N)
        # params (kernel param space), padded so typed views of any width fit
        pb = np.zeros(((len(params) + 15) // 16) * 16 + 16, dtype=np.uint8)
        pb[:len(params)] = np.frombuffer(bytes(params), dtype=np.uint8)
        self.param_buf = pb
        self.param_len = len(params)
        self.param_gbase: int | None = None
        self.envreg: dict[int, int] = {}          # %envregN values (cooperative launch workspace)
        # shared memory: one buffer for all CTAs, CTA c at c * smem_stride
        self.dyn_smem = int(dyn_smem)
        self.smem_size = prog.static_smem + (
            ((prog.static_smem + 15) // 16 * 16 - prog.static_smem) if self.dyn_smem else 0) + self.dyn_smem
        self.smem_stride = max(16, (self.smem_size + 15) // 16 * 16)
        self.smem = np.zeros(self.ncta * self.smem_stride, dtype=np.uint8)
        # lane and warp indices (shared, read-only: see LaneShape)
        shape = self.shape = lane_shape(self.ncta, self.Wc, self.T, self.smem_stride)
        self.all_lanes = shape.all_lanes
        self.lane_cta = shape.lane_cta
        self.lane_t = shape.lane_t
        self.warp_ids = shape.warp_ids
        self.warp_cta = shape.warp_cta
        self.lane_smem_base = shape.lane_smem_base
        self.lane_smem_base32 = shape.lane_smem_base32
        # local memory: per lane L bytes; frames grow at fp
        need = sum(fi.frame_bytes for fi in prog.funcs.values())
        self.L = max(16, (need + 15) // 16 * 16)
        self.loc = np.zeros(N * self.L, dtype=np.uint8)
        self.fp = np.zeros(N, dtype=np.int64)
        # SIMT stacks
        D = 4
        self.spc = np.zeros((self.W, D), dtype=np.int64)
        self.srpc = np.full((self.W, D), -1, dtype=np.int64)
        self.smask = np.zeros((self.W, D), dtype=np.int64)
        self.smask[:, 0] = shape.init_masks
        self.depth = np.ones(self.W, dtype=np.int64)
        self.init_masks = shape.init_masks
        self.last_group: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None   # simt._group_lanes
        self.valid_lanes = shape.valid_lanes
        self.exited = shape.exited.copy()
        # barriers
        self.at_bar = np.full(self.W, -1, dtype=np.int64)
        self.live_warps = np.full(self.ncta, self.Wc, dtype=np.int64)
        self.bar_arrived: dict[int, np.ndarray] = {}
        self.bar_expect: dict[int, np.ndarray] = {}
        self.bar_red: dict[int, tuple[str, Any]] = {}
        self.bar_pred = np.zeros(N, dtype=np.bool_)
        self.bar_part = np.zeros(N, dtype=np.bool_)
        # counters
        self.thread_insn = 0
        self.warp_insn = 0
        self.pc_thread = [0] * len(prog.insts)
        # lanes active at issue, guard true or false (their sum is the kernel's active_insn)
        self.pc_active = [0] * len(prog.insts)
        self.pc_warp = [0] * len(prog.insts)
        self.pc_issued: list[int] = []      # pcs whose pc_warp count became nonzero, first issue order
        #: per pc of a generic-address ld/st/atom: thread instructions by the space the timing
        #: model counts its warp under, [global, shared, local] (``mem_insts.count_generic``)
        self.pc_generic: dict[int, list[int]] = {}
        self.steps = 0
        # per-warp count of issued instructions: the functional-mode %clock (see special())
        self.wclock: np.ndarray | None = np.zeros(self.W, dtype=np.int64) if prog.reads_clock else None
        #: the watchdog: more issue steps than this end the kernel (``-functional_step_limit``)
        self.watchdog_steps = int(_opt(options, "functional_step_limit", 50_000_000))
        #: the drivers call :meth:`watchdog` once ``steps`` exceeds this
        self.step_limit = self.watchdog_steps
        self.progress = active
        if active is not None:
            active.current = self
            self._counted = False
            if active.max_cta:
                self._limit_ctas(active)
            else:
                active.ctas_started += self.ncta
            self.step_limit = self._next_check()
        # memcheck (gpgpusim.functional.memcheck): the hook GlobalMemory.translate calls for
        # lanes outside every allocation; None when off, so the access path pays nothing
        self.memcheck = _memcheck_mode(options)
        self.mc_hook: Callable[[np.ndarray, np.ndarray, int], None] | None = \
            self._memcheck_report if self.memcheck else None
        # per-issue scratch
        self._scratch = np.zeros(N, dtype=np.bool_)
        self.last_exec_mask = 0
        self.fault_lanes: np.ndarray | None = None
        #: sectors of global memory this chunk read or wrote first (``sectors.SectorLog``, when
        #: the memory keeps one: kernel sampling's cold misses)
        self.cold_reads = 0
        self.cold_writes = 0
        #: global-memory transactions of this chunk's loads / stores and atomics (when the
        #: memory keeps a sector log: ``mem_insts.count_transactions``)
        self.tx_reads = 0
        self.tx_writes = 0
        self.fault_space = "global"
        self.rec: list | None = None
        self.deferred: list = []
        self.defer_atomics = False
        self._special: dict[tuple[str, str | None], np.ndarray] = {}
        self.nsm = int(_opt(options, "gpgpu_n_clusters", 80)) * int(_opt(options, "gpgpu_n_cores_per_cluster", 1))
        self._setup_debug()

    # ------------------------------------------------------------------ helpers
    def scratch_bool(self) -> np.ndarray:
        return self._scratch

    def lanes(self, sel: np.ndarray | None) -> np.ndarray:
        return self.all_lanes if sel is None else sel

    def grow_stack(self) -> None:
        D = self.spc.shape[1]
        for name in ("spc", "srpc", "smask"):
            old = getattr(self, name)
            new = np.full((self.W, D * 2), -1 if name == "srpc" else 0, dtype=np.int64)
            new[:, :D] = old
            setattr(self, name, new)

    def grow_local(self, need: int) -> None:
        L2 = max(self.L * 2, (need + 15) // 16 * 16)
        if self.N * L2 > (1 << 31):
            raise CudaError(Err.LaunchOutOfResources,
                            f"{self.prog.kernel.name}: per-thread stack/local memory would exceed "
                            f"{L2} bytes (runaway recursion?)", sticky=True)
        new = np.zeros((self.N, L2), dtype=np.uint8)
        new[:, :self.L] = self.loc.reshape(self.N, self.L)
        self.loc = new.reshape(-1)
        self.L = L2

    def cta_coords(self, c: int) -> tuple[int, int, int]:
        gid = int(self.cta_ids[c])
        gx, gy, _ = self.grid
        return gid % gx, (gid // gx) % gy, gid // (gx * gy)

    def thread_coords(self, t: int) -> tuple[int, int, int]:
        bx, by, _ = self.block
        return t % bx, (t // bx) % by, t // (bx * by)

    def describe_lane(self, lane: int) -> str:
        c = int(self.lane_cta[lane])
        t = int(self.lane_t[lane])
        return f"thread ({','.join(map(str, self.thread_coords(t)))}) in block ({','.join(map(str, self.cta_coords(c)))})"

    def param_generic_base(self) -> int:
        """Global address of a read-only copy of the kernel parameters (made on first use)."""
        if self.param_gbase is None:
            self.param_gbase = self.gmem.allocate(max(self.param_len, 1))
            self.gmem.write(self.param_gbase, self.param_buf[:self.param_len])
        return self.param_gbase

    def close(self) -> None:
        p = self.progress
        if p is not None and not self._counted:      # the chunk's counts join the run's
            self._counted = True
            p.base += self.thread_insn
            p.warp_base += self.warp_insn
            if p.current is self:
                p.current = None
        if self.param_gbase is not None:
            self.gmem.free(self.param_gbase)
            self.param_gbase = None
        if self._dbg_file is not None and self._dbg_file not in (sys.stdout, sys.stderr):
            self._dbg_file.close()

    # ------------------------------------------------------------------ special registers
    def special(self, name: str, comp: str | None) -> np.ndarray:
        if self.hooks.hw is not None and name in HW_SPECIALS:
            return self.hooks.hw.special(name)
        dyn = name in ("%clock", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi")
        key = (name, comp)
        v = None if dyn else self._special.get(key)
        if v is not None:
            return v
        shared = self._shared_key(name, comp)
        if shared is not None:
            v = self.shape.specials.get(shared)
            if v is not None:
                self._special[key] = v
                return v
        N = self.N
        ci = {"x": 0, "y": 1, "z": 2, None: 0}.get(comp, 0)
        t = self.lane_t
        bx, by, bz = self.block
        if name == "%tid":
            v = (t % bx, (t // bx) % by, t // (bx * by))[ci]
        elif name == "%ntid":
            v = np.full(N, self.block[ci])
        elif name in ("%ctaid", "%nctaid"):
            if name == "%nctaid":
                v = np.full(N, self.grid[ci])
            else:
                gid = self.cta_ids[self.lane_cta]
                gx, gy, _ = self.grid
                v = (gid % gx, (gid // gx) % gy, gid // (gx * gy))[ci]
        elif name == "%laneid":
            v = self.all_lanes & 31
        elif name == "%warpid":
            v = t >> 5
        elif name == "%nwarpid":
            v = np.full(N, 64)
        elif name == "%smid":
            v = self.cta_ids[self.lane_cta] % self.nsm
        elif name == "%nsmid":
            v = np.full(N, self.nsm)
        elif name == "%gridid":
            v = np.full(N, self.gridid, dtype=np.uint64)
        elif name in ("%clock", "%clock64"):
            # Functional mode has no core clock (GPGPU-Sim reads the SIMT-core cycle, S000
            # "%clock"): each warp instruction counts as one cycle of its own warp, so a thread
            # sees its clock advance by the warp instructions issued in between.  That is
            # monotonic within a thread, deterministic, and the same for both drivers (the SIMT
            # stack alone decides a warp's instruction sequence); the timing model replaces it.
            assert self.wclock is not None
            c = self.wclock[self.all_lanes >> 5].astype(np.uint64)
            v = c if name == "%clock64" else (c & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        elif name.startswith("%globaltimer"):
            # nanoseconds since the Unix epoch, as the hardware's timer (synchronised with the
            # host clock) reads; derived from a monotonic clock so it never steps backwards
            ns = _GLOBALTIMER_BASE_NS + time.perf_counter_ns()
            if name == "%globaltimer_lo":
                ns &= 0xFFFFFFFF
            elif name == "%globaltimer_hi":
                ns >>= 32
            v = np.full(N, ns, dtype=np.uint64)
        elif name.startswith("%lanemask_"):
            lid = (self.all_lanes & 31).astype(np.uint64)
            one = np.uint64(1)
            lt = (one << lid) - one
            le = (one << (lid + one)) - one
            m = {"eq": one << lid, "lt": lt, "le": le, "ge": ~lt, "gt": ~le}[name[10:]]
            v = (m & np.uint64(FULL)).astype(np.uint32)
        elif name == "%dynamic_smem_size":
            v = np.full(N, self.dyn_smem)
        elif name == "%total_smem_size":
            v = np.full(N, self.smem_size)
        elif name.startswith("%envreg"):
            v = np.full(N, self.envreg.get(int(name[7:] or 0), 0), dtype=np.uint32)
        elif name.startswith("%pm"):
            v = np.zeros(N)
        else:
            raise CudaError(Err.NotSupported, f"not supported: special register {name}")
        if v.dtype not in (np.uint64, np.uint32):
            v = v.astype(np.uint32)
        if not dyn:
            self._special[key] = v
        if shared is not None:
            v.flags.writeable = False
            kept = self.shape.specials
            if len(kept) >= _SPECIALS_PER_SHAPE:
                del kept[next(iter(kept))]
            kept[shared] = v
        return v

    def _shared_key(self, name: str, comp: str | None) -> tuple[Any, ...] | None:
        """The key under which special register ``name`` is shared between Execs (see
        :data:`_SHAPE_SPECIALS`); None when it is not: ``%ctaid`` of a chunk whose CTAs are not
        consecutive, and every register the shape does not decide."""
        if name not in _SHAPE_SPECIALS:
            return None
        if name == "%ctaid":
            ids = self.cta_ids
            first = int(ids[0])
            if int(ids[-1]) - first + 1 != self.ncta or (self.ncta > 2 and not bool((np.diff(ids) == 1).all())):
                return None
            return (name, comp, self.block, self.grid, first)
        return (name, comp, self.block, self.grid if name == "%nctaid" else None)

    # ------------------------------------------------------------------ memory
    def _check_align(self, addrs: np.ndarray, size: int) -> None:
        # one reduction: the OR of all addresses has a low bit set iff some lane is misaligned
        if size > 1 and addrs.size and int(np.bitwise_or.reduce(addrs)) & (size - 1):
            bad = (addrs.astype(np.uint64, copy=False) & np.uint64(size - 1)) != 0
            lane = int(np.flatnonzero(bad)[0])
            raise MemoryFault("misaligned", lane, int(addrs[lane]), size)

    def _memcheck_report(self, pos: np.ndarray, addrs: np.ndarray, size: int) -> None:
        """Memcheck hook of :meth:`parts` (global space): report lanes ``pos`` of the access;
        in stop mode (2) fault at the first of them."""

        lanes = self.fault_lanes
        memcheck.report(self, pos if lanes is None else lanes[pos], addrs[pos], size)
        if self.memcheck >= 2:
            raise MemoryFault("illegal", int(pos[0]), int(addrs[pos[0]]), size)

    def _bounded(self, addrs: np.ndarray, size: int, limit: int) -> np.ndarray:
        """Addresses as int64 (int32 for 32-bit addresses), checked against ``[0, limit)`` and
        for alignment."""
        if addrs.dtype == np.uint32:
            if addrs.size and int(addrs.max()) + size > limit:
                bad = addrs.astype(np.int64) + size > limit
                i = int(np.flatnonzero(bad)[0])
                raise MemoryFault("illegal", i, int(addrs[i]), size)
            self._check_align(addrs, size)
            return addrs.view(np.int32)
        if addrs.dtype == np.int64:
            a = addrs
        elif addrs.dtype == np.uint64:
            a = addrs.view(np.int64)
        else:
            a = addrs.astype(np.int64)
        if a.size and (int(a.min()) < 0 or int(a.max()) + size > limit):
            bad = (a < 0) | (a + size > limit)
            i = int(np.flatnonzero(bad)[0])
            raise MemoryFault("illegal", i, int(addrs[i]), size)
        self._check_align(a, size)
        return a

    def parts(self, space: str, addrs: np.ndarray, lanes: np.ndarray, dt: np.dtype):
        """Resolve per-lane addresses to ``[(typed array, indices, positions or None)]``."""
        size = dt.itemsize
        self.fault_lanes = lanes
        self.fault_space = space
        sh = _SH[size]
        if space in ("global", "const"):
            self._check_align(addrs, size)
            out = []
            for base, pos, offs in self.gmem.translate(addrs, size, self.mc_hook):
                view, idx = self.gmem.index(base, dt, offs)
                out.append((view, idx, pos))
            return out
        if space == "shared":
            a = self._bounded(addrs, size, self.smem_size)
            lb = self.lane_smem_base32 if a.dtype == np.int32 and self.lane_smem_base32 is not None \
                else self.lane_smem_base
            lbase = lb if lanes is self.all_lanes else lb[lanes]
            flat = lbase + a
            return [(self.smem.view(dt), flat >> sh if sh else flat, None)]
        if space == "local":
            a = self._bounded(addrs, size, self.L)
            flat = lanes * self.L + a
            return [(self.loc.view(dt), flat >> sh if sh else flat, None)]
        if space == "param":
            a = self._bounded(addrs, size, self.param_len)
            return [(self.param_buf.view(dt), a >> sh if sh else a, None)]
        if space == "generic":
            a = addrs.astype(np.uint64, copy=False)
            win = a >> WINDOW_SHIFT
            if not win.any():
                return self.parts("global", a, lanes, dt)
            out = []
            for w, sp, base in ((0, "global", 0), (1, "shared", SHARED_WINDOW), (2, "local", LOCAL_WINDOW)):
                pos = np.flatnonzero(win == w)
                if pos.size == 0:
                    continue
                sub = a[pos] - np.uint64(base)
                if w and bool((sub >= np.uint64(WINDOW_SIZE)).any()):
                    i = int(pos[np.flatnonzero(sub >= np.uint64(WINDOW_SIZE))[0]])
                    self.fault_lanes = lanes
                    raise MemoryFault("illegal", i, int(a[i]), size)
                try:
                    sparts = self.parts(sp, sub, lanes[pos], dt)
                except MemoryFault as f:
                    self.fault_lanes = lanes
                    self.fault_space = "generic"
                    raise MemoryFault(f.kind, int(pos[f.lane]), int(a[pos[f.lane]]), size) from None
                for arr, idx, p2 in sparts:
                    out.append((arr, idx, pos if p2 is None else pos[p2]))
            if not (win <= 2).all():
                i = int(np.flatnonzero(win > 2)[0])
                self.fault_lanes = lanes
                raise MemoryFault("illegal", i, int(a[i]), size)
            return out
        raise CudaError(Err.NotSupported, f"not supported: memory space .{space}")

    def record(self, space: str, addrs: np.ndarray, size: int, is_store: bool) -> None:
        """Note an access for the warp-step driver (``StepResult.mem``).  Generic addresses are
        resolved: shared/local entries carry the space-relative address (what the timing model
        needs for banks and the local-memory layout); ``param`` reads are not memory traffic."""
        assert self.rec is not None
        if space == "param":
            return
        a = np.array(addrs, dtype=np.uint64)
        if space == "generic":
            win = a >> WINDOW_SHIFT
            if win.any():
                for w, sp, base in ((0, "global", 0), (1, "shared", SHARED_WINDOW), (2, "local", LOCAL_WINDOW)):
                    m = win == w
                    if m.any():
                        self.rec.append((sp, a[m] - np.uint64(base), size, is_store))
                return
            space = "global"
        self.rec.append((space, a, size, is_store))

    def load(self, space: str, addrs: np.ndarray, lanes: np.ndarray, dt: np.dtype) -> np.ndarray:
        if self.rec is not None:
            self.record(space, addrs, dt.itemsize, False)
        if self.hooks.trace is not None:
            self.hooks.trace.access(self, space, addrs, lanes, dt.itemsize, False, False)
        ps = self.parts(space, addrs, lanes, dt)
        if self.gmem.sectors is not None:
            self.cold_reads += self.gmem.sectors.read(space, addrs, dt.itemsize)
        if len(ps) == 1 and ps[0][2] is None:
            arr, idx, _ = ps[0]
            return arr[idx]
        out = np.empty(addrs.size, dtype=dt)
        for arr, idx, pos in ps:
            out[pos] = arr[idx]
        return out

    def store(self, space: str, addrs: np.ndarray, lanes: np.ndarray, values: np.ndarray) -> None:
        dt = values.dtype
        if self.rec is not None:
            self.record(space, addrs, dt.itemsize, True)
        if self.hooks.trace is not None:
            self.hooks.trace.access(self, space, addrs, lanes, dt.itemsize, True, False)
        if self.gmem.cow is not None:
            self.gmem.cow.before_write(space, addrs)
        for arr, idx, pos in self.parts(space, addrs, lanes, dt):
            arr[idx] = values if pos is None else values[pos]
        if self.gmem.sectors is not None:
            self.cold_writes += self.gmem.sectors.write(space, addrs, dt.itemsize)

    def read_generic_bytes(self, addr: int, lane: int, n: int) -> bytes:
        """Scalar byte read through a generic address for one lane (printf)."""
        a = np.full(n, addr, dtype=np.uint64) + np.arange(n, dtype=np.uint64)
        lanes = np.full(n, lane, dtype=np.int64)
        return self.load("generic", a, lanes, np.dtype(np.uint8)).tobytes()

    def read_cstring(self, addr: int, lane: int, limit: int = 1 << 16) -> str:
        out = bytearray()
        while len(out) < limit:
            b = self.read_generic_bytes(addr + len(out), lane, 1)
            if b == b"\0":
                break
            out += b
        return out.decode("utf-8", errors="replace")

    # ------------------------------------------------------------------ barriers
    def arrive(self, bar_id: int, G: np.ndarray, expected_threads: int | None, d: dec.DInst) -> None:
        arr = self.bar_arrived.get(bar_id)
        if arr is None:
            arr = self.bar_arrived[bar_id] = np.zeros(self.ncta, dtype=np.int64)
        ctas = self.warp_cta[G]
        np.add.at(arr, ctas, 1)
        if expected_threads is not None:
            exp = self.bar_expect.get(bar_id)
            if exp is None:
                exp = self.bar_expect[bar_id] = np.full(self.ncta, -1, dtype=np.int64)
            exp[ctas] = (int(expected_threads) + 31) // 32
        self.check_release(bar_id, np.unique(ctas))

    def check_release(self, bar_id: int, ctas: np.ndarray) -> None:
        arr = self.bar_arrived[bar_id]
        need = self.live_warps[ctas]
        exp = self.bar_expect.get(bar_id)
        if exp is not None:
            e = exp[ctas]
            need = np.where(e >= 0, e, need)
        rel = ctas[(arr[ctas] >= need) & (arr[ctas] > 0)]
        if rel.size == 0:
            return
        wm = np.isin(self.warp_cta, rel)
        self.at_bar[wm & (self.at_bar == bar_id)] = -1
        arr[rel] = 0
        if exp is not None:
            exp[rel] = -1
        red = self.bar_red.get(bar_id)
        if red is not None:
            op, writer = red
            lanes = np.flatnonzero(np.isin(self.lane_cta, rel) & self.bar_part)
            if lanes.size:
                c = self.lane_cta[lanes]
                pv = self.bar_pred[lanes]
                cnt = np.bincount(c, weights=pv, minlength=self.ncta)
                tot = np.bincount(c, minlength=self.ncta)
                res: np.ndarray
                if op == "popc":
                    res = cnt[c].astype(np.uint32)
                elif op == "and":
                    res = cnt[c] == tot[c]
                else:
                    res = cnt[c] > 0
                writer(self, lanes, res)
                self.bar_part[lanes] = False

    def warp_done(self, done: np.ndarray) -> None:
        """Warps ``done`` exited: their CTAs count them off, and a barrier those CTAs wait at
        may now be complete (the warps still live have all arrived)."""
        ctas = self.warp_cta[done]
        np.subtract.at(self.live_warps, ctas, 1)
        if not self.bar_arrived:          # no barrier used yet: nothing waits (spares np.unique)
            return
        u = np.unique(ctas)
        for bar_id, arr in self.bar_arrived.items():
            if arr[u].any():
                self.check_release(bar_id, u)

    def deadlock(self) -> None:
        parts = []
        for c in range(self.ncta):
            ws = np.flatnonzero((self.warp_cta == c) & (self.depth > 0))
            if ws.size == 0:
                continue
            desc = []
            for w in ws[:8]:
                w = int(w)
                pc = int(self.spc[w, self.depth[w] - 1])
                d = self.prog.insts[pc - 1] if pc > 0 else self.prog.insts[pc]
                desc.append(f"warp {w - c * self.Wc} waits at barrier {int(self.at_bar[w])} "
                            f"after line {d.line} (pc {pc})")
            parts.append(f"block ({','.join(map(str, self.cta_coords(c)))}): " + "; ".join(desc))
            if len(parts) >= 4:
                break
        raise CudaError(Err.LaunchFailure,
                        f"deadlock in {self.prog.kernel.name}: barrier can never complete: "
                        + " | ".join(parts), sticky=True)

    def _limit_ctas(self, p: Progress) -> None:
        """``-gpgpu_max_cta``: the CTAs of this chunk past the limit start finished."""
        run = max(0, min(self.ncta, p.max_cta - p.ctas_started))
        p.ctas_started += run
        if run < self.ncta:
            warps = slice(run * self.Wc, self.W)
            self.depth[warps] = 0
            self.exited[run * self.Wc * 32:] = True
            self.live_warps[run:] = 0

    def _next_check(self) -> int:
        """The value of ``step_limit`` under which the watchdog and the instruction limit are
        both consulted in time (see :class:`Progress`)."""
        p = self.progress
        if p is None or not p.max_insn:
            return self.watchdog_steps
        left = p.max_insn - p.base - self.thread_insn
        n = max(self.N, 1)
        return max(self.steps - 1, min(self.watchdog_steps, self.steps + (left + n - 1) // n - 1))

    def watchdog(self) -> None:
        """Consulted by the drivers once ``steps > step_limit``: stop at the instruction limit
        (:class:`InstructionLimitReached`), or end a kernel that issued more than
        ``watchdog_steps`` steps (``cudaErrorLaunchTimeout``)."""
        p = self.progress
        if p is not None and p.max_insn and p.base + self.thread_insn >= p.max_insn:
            last = int(self.cta_ids[-1]) == self.grid[0] * self.grid[1] * self.grid[2] - 1
            if not (last and not (self.depth > 0).any()):
                raise InstructionLimitReached(p.base + self.thread_insn)
            # the kernel's last step reached it: the kernel completes, the next one stops
        if self.steps <= self.watchdog_steps:
            self.step_limit = self._next_check()
            return
        live = np.flatnonzero(self.depth > 0)
        where = sorted({int(self.spc[w, self.depth[w] - 1]) for w in live[:64]})[:6]
        lines = ", ".join(f"line {self.prog.insts[pc].line} (pc {pc})" for pc in where)
        raise CudaError(Err.LaunchTimeout,
                        f"{self.prog.kernel.name}: functional watchdog: more than {self.watchdog_steps} "
                        f"issue steps (infinite loop? raise -functional_step_limit); {live.size} warps "
                        f"still running, at {lines}",
                        sticky=True)

    # ------------------------------------------------------------------ debug trace (C019 C020 C204)
    def _setup_debug(self) -> None:
        import os
        lvl = dec.debug_level()
        uid_env = os.environ.get("PTX_SIM_DEBUG_THREAD_UID")
        uid = int(uid_env) if uid_env not in (None, "") else None
        self._dbg_file: Any = None
        if int(_opt(self.options, "gpgpu_ptx_inst_debug_to_file", 0)):
            path = str(_opt(self.options, "gpgpu_ptx_inst_debug_file", "inst_debug.txt"))
            self._dbg_file = open(path, "a")  # noqa: SIM115 - closed in close()
            uid = int(_opt(self.options, "gpgpu_ptx_inst_debug_thread_uid", 1))
            lvl = max(lvl, 6)
        self.debug = lvl >= 5
        self.debug_level = lvl
        self.debug_lane = None
        self.debug_uid = uid
        if self.debug and self._dbg_file is None:
            self._dbg_file = sys.stdout
        if uid is not None and self.debug:
            cta, t = divmod(uid, self.T)
            hit = np.flatnonzero(self.cta_ids == cta)
            self.debug_lane = int(hit[0]) * self.Wc * 32 + t if hit.size else -1
        if lvl >= 1:     # level 1: CTA allocation (GPGPU-Sim: verbose logs for CTA allocation)
            out = self._dbg_file or sys.stdout
            for c in range(self.ncta):
                out.write(f"GPGPU-Sim PTX: allocating CTA ({','.join(map(str, self.cta_coords(c)))}) of "
                          f"{self.prog.kernel.name}: {self.T} threads, {self.Wc} warps, "
                          f"{self.smem_size} bytes shared, {self.L} bytes local per thread\n")
            out.flush()

    def trace(self, d: dec.DInst, esel: np.ndarray | None) -> None:
        f = self._dbg_file
        text = d.text if d.inst is None else str(d.inst)
        if self.debug_uid is not None:
            lane = self.debug_lane
            if lane is None or lane < 0:
                return
            if esel is not None and not np.isin(lane, esel):
                return
            f.write(f"thread {self.debug_uid} pc {d.pc} line {d.line}: {text}\n")
            lanes = [lane]
        else:
            n = self.N if esel is None else esel.size
            f.write(f"pc {d.pc} line {d.line}: {text}  [{n} threads]\n")
            lanes = [] if esel is None and self.N == 0 else [int(self.all_lanes[0] if esel is None else (esel[0] if esel.size else -1))]
        if self.debug_level >= 6 and d.inst is not None and d.inst.operands:
            op = d.inst.operands[0]
            regs = []
            if isinstance(op, dec.ir.Reg):
                regs = [op]
            elif isinstance(op, dec.ir.PredPair):
                regs = [r for r in (op.p, op.q) if r is not None]
            elif isinstance(op, dec.ir.Vec):
                regs = [r for r in op.elems if isinstance(r, dec.ir.Reg)]
            regs = [r for r in regs if r.name in d.func.slots]
            if regs and lanes and lanes[0] >= 0:
                f.write("Output Registers:\n")
                for r in regs:
                    f.write(format_reg(r.name, d.func.fn.regs.get(r.name, ""),
                                       self.R[d.func.slots[r.name]][lanes[0]]) + "\n")
        if self.debug_level >= 10 and self.debug_uid is not None and lanes and lanes[0] >= 0:
            # level 10: the whole register file of the traced thread (its current function)
            f.write("Register File Contents:\n")
            for name, slot in sorted(d.func.slots.items()):
                f.write(format_reg(name, d.func.fn.regs.get(name, ""), self.R[slot][lanes[0]]) + "\n")
        f.flush()


def format_reg(name: str, ptx_type: str, raw: Any) -> str:
    """One register as GPGPU-Sim's single-thread trace prints it (``print_reg``): the name
    right-aligned in 8 columns, then the declared type and value -- signed decimal, unsigned
    decimal with the hex bits, floats with 15 decimals (f64 in exponent form) and the bits,
    untyped ``.b`` registers in hex, predicates as 0/1."""
    head = f"  {name:>8s}   "
    if ptx_type == "pred":
        return head + f".pred {int(bool(raw))}"
    size = dec.ir.TYPE_SIZES.get(ptx_type)
    if size is None:
        return head + "non-scalar type"
    u = int(raw) & ((1 << (8 * size)) - 1)
    digits = 2 * size
    if ptx_type[0] == "s":
        v = u - (1 << (8 * size)) if u >> (8 * size - 1) else u
        return head + f".{ptx_type:<3s} {v}"
    if ptx_type[0] == "u":
        hexed = f"0x{u:x}" if size == 8 else f"0x{u:0{digits}x}"
        return head + f".{ptx_type:<3s} {u} [{hexed}]"
    if ptx_type[0] == "b":
        return head + (f".b64 0x{u:x}" if size == 8 else f".{ptx_type:<3s} 0x{u:0{digits}x}")
    if ptx_type in ("f16", "f32", "f64"):
        dt = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[ptx_type]
        ut = {2: np.uint16, 4: np.uint32, 8: np.uint64}[size]
        x = float(np.asarray(u, dtype=ut).view(dt))
        if x != x:
            text = "-nan" if u >> (8 * size - 1) else "nan"
        elif ptx_type == "f64":
            text = f"{x:.15e}"
        else:
            text = f"{x:.15f}" if ptx_type == "f32" else f"{x:f}"
        return head + f".{ptx_type} {text} [0x{u:0{digits}x}]"
    return head + "non-scalar type"
