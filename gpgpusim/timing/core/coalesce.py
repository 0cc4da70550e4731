"""Memory access generation for one warp instruction (GPGPU-Sim
``warp_inst_t::generate_mem_accesses``; C104-C107).

* global/local (``memory_coalescing_arch``): the warp (split into ``-gpgpu_shmem_warp_parts``
  sub-warps, GPGPU-Sim's ``mem_warp_parts``) makes one transaction per touched segment; the
  segment is 32 bytes from ``-gpgpu_coalesce_arch`` 40 on (Maxwell..Volta+: sectors) and on
  Fermi/Kepler for ``.cg`` or under ``-gpgpu_gmem_skip_L1D``, else 32/64/128 bytes by access
  width, reduced to the used half/quarter
  (``memory_coalescing_arch_reduce_and_send``).  Each access carries its 4-bit sector mask
  within the 128-byte line and its byte mask.
* atomics (``memory_coalescing_arch_atomic``): the same segment size as other global accesses
  (32-byte sectors from arch 40 on), and per segment, threads whose bytes overlap go to
  separate transactions (same-address atomics serialise into several requests).
* local memory: per-thread addresses are mapped to the shared physical layout of
  ``shader_core_ctx::translate_local_memaddr`` (``-gpgpu_local_mem_map 1``: 4-byte words of
  the threads of a CTA contiguous, CTAs next to each other) and accesses over 4 bytes are split
  into 4-byte words, as GPGPU-Sim does.
* shared memory: the bank-conflict degree (``-gpgpu_shmem_num_banks`` banks of 4-byte words;
  lanes reading the same word broadcast) per sub-warp, summed over sub-warps; the instruction
  occupies the shared-memory stage that many cycles.

Accesses are returned in the order GPGPU-Sim's access queue serves them (it pops from the
back of a queue filled in address order: highest segment first).
"""

from __future__ import annotations

import numpy as np

#: base of the simulated local-memory region (GPGPU-Sim's LOCAL_GENERIC_START region; only
#: its alignment matters to the timing model: it decides partitions and banks)
LOCAL_BASE = 0xB0000000


class Access:
    """One memory request of a warp instruction (GPGPU-Sim ``mem_access_t``)."""

    __slots__ = ("addr", "size", "sector_mask", "byte_mask", "lanes")

    def __init__(self, addr: int, size: int, sector_mask: int, byte_mask: int, lanes: int) -> None:
        self.addr = addr
        self.size = size
        self.sector_mask = sector_mask
        self.byte_mask = byte_mask
        self.lanes = lanes

    def __repr__(self) -> str:
        return f"Access({self.addr:#x}, {self.size}, sectors={self.sector_mask:#x})"


def segment_bytes(arch: int, size: int, sector: bool = False) -> int:
    """Transaction segment of ``memory_coalescing_arch``: 32-byte sectors from arch 40 on, and
    on Fermi/Kepler (20..38) when the access bypasses the L1D (``sector``: ``.cg`` or
    ``-gpgpu_gmem_skip_L1D``), else 32/64/128 bytes by access width."""
    if arch >= 40 or (sector and 20 <= arch < 39):
        return 32
    if size == 1:
        return 32
    if size == 2:
        return 64
    return 128


def _reduce(block: int, seg: int, chunks: int) -> tuple[int, int]:
    """(address, size) of a transaction after ``memory_coalescing_arch_reduce_and_send``."""
    if seg == 128:
        lower = chunks & 0b0011
        upper = chunks & 0b1100
        if lower and not upper:
            if (chunks & 0b11) == 0b11:
                return block, 64
            return block + (0 if chunks & 1 else 32), 32
        if upper and not lower:
            if (chunks & 0b1100) == 0b1100:
                return block + 64, 64
            return block + (64 if chunks & 4 else 96), 32
        return block, 128
    if seg == 64:
        off = block & 127
        first = (chunks >> (off // 32)) & 1
        second = (chunks >> (off // 32 + 1)) & 1
        if first and not second:
            return block, 32
        if second and not first:
            return block + 32, 32
        return block, 64
    return block, seg


#: coalesced transaction patterns by (lane offsets, lanes, size, arch, parts, atomic, sector):
#: the transactions relative to the first lane's 128-byte line.  Coalescing is invariant under
#: a shift by a multiple of 128 bytes (segments divide 128), and warps repeat a few patterns
#: (consecutive words, a fixed stride), so each pattern is worked out once.  The table is
#: cleared when it holds _COALESCE_MAX patterns or _COALESCE_MAX_TX transactions: scattered
#: accesses (atomics on a histogram, a gather) rarely repeat a pattern, and each of theirs
#: holds up to 32 transactions (~5 KB with its key).
_COALESCE_MEMO: dict[tuple, list[tuple[int, int, int, int, int]]] = {}
_COALESCE_MAX = 4096
_COALESCE_MAX_TX = 16384
_coalesce_tx = 0        # transactions held by _COALESCE_MEMO


def coalesce(lanes: np.ndarray, addrs: np.ndarray, size: int, arch: int, warp_parts: int,
             atomic: bool = False, sector: bool = False) -> list[Access]:
    """The accesses of one warp instruction (lane indices and per-lane byte addresses);
    ``sector``: see :func:`segment_bytes`."""
    if lanes.size == 0:
        return []
    dt = addrs.dtype
    a = addrs if dt == np.int64 else addrs.view(np.int64) if dt == np.uint64 else addrs.astype(np.int64)
    base = int(a[0]) & ~127
    rel = a - base if base else a
    key = (rel.tobytes(), lanes.tobytes(), size, arch, warp_parts, atomic, sector)
    pat = _COALESCE_MEMO.get(key)
    if pat is None:
        pat = _memo_pattern(key, _coalesce(lanes.tolist(), rel.tolist(), size, arch, warp_parts, atomic, sector))
    return [Access(base + r, s2, ch, bm, lm) for r, s2, ch, bm, lm in pat]


def _memo_pattern(key: tuple, pat: list[tuple[int, int, int, int, int]]) -> list[tuple[int, int, int, int, int]]:
    """Enter ``pat`` in _COALESCE_MEMO, clearing the table first when it is full."""
    global _coalesce_tx
    if len(_COALESCE_MEMO) >= _COALESCE_MAX or _coalesce_tx + len(pat) > _COALESCE_MAX_TX:
        _COALESCE_MEMO.clear()
        _coalesce_tx = 0
    _COALESCE_MEMO[key] = pat
    _coalesce_tx += len(pat)
    return pat


def _coalesce(ln: list[int], ad: list[int], size: int, arch: int, warp_parts: int,
              atomic: bool, sector: bool) -> list[tuple[int, int, int, int, int]]:
    """:func:`coalesce` on plain lists: (address, size, sector mask, byte mask, lane mask) per
    transaction, in serve order."""
    seg = segment_bytes(arch, size, sector)
    parts = max(1, warp_parts)
    sub = 32 // parts
    out: list[tuple[int, int, int, int, int]] = []
    if atomic:
        groups: dict[int, list[list[int]]] = {}   # block -> [chunks, bytes, lanes] per transaction
        for p in range(parts):
            for lane, a in zip(ln, ad, strict=True):
                if lane // sub != p:
                    continue
                block = a & ~(seg - 1)
                idx = a & 127
                bmask = ((1 << size) - 1) << idx
                lst = groups.setdefault(block, [])
                for t in lst:
                    if not t[1] & bmask:
                        break
                else:
                    t = [0, 0, 0]
                    lst.append(t)
                t[0] |= 1 << (idx // 32)
                t[1] |= bmask
                t[2] |= 1 << lane
            for block in sorted(groups):
                for chunks, bm, lm in groups[block]:
                    a2, s2 = _reduce(block, seg, chunks)
                    out.append((a2, s2, chunks, bm, lm))
            groups.clear()
        out.reverse()
        return out
    for p in range(parts):
        trans: dict[int, list[int]] = {}
        for lane, a in zip(ln, ad, strict=True):
            if parts > 1 and lane // sub != p:
                continue
            for addr in (a, a + size - 1):
                block = addr & ~(seg - 1)
                t = trans.setdefault(block, [0, 0, 0])
                idx = addr & 127
                t[0] |= 1 << (idx // 32)
                if addr == a:
                    t[1] |= ((1 << size) - 1) << idx
                t[2] |= 1 << lane
        for block in sorted(trans):
            chunks, bm, lm = trans[block]
            a2, s2 = _reduce(block, seg, chunks)
            # the sector mask is the set of 32-byte chunks the threads touched (mem_access_t's
            # sector mask), not every sector the transaction's size spans
            out.append((a2, s2, chunks, bm & ((1 << 128) - 1), lm))
    out.reverse()
    return out


def local_addresses(lanes: np.ndarray, addrs: np.ndarray, size: int, hw_tid_base: int,
                    padded_cta_threads: int, sid: int, n_shader: int, max_cta_per_core: int
                    ) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """Per-thread local addresses -> the physical layout of ``translate_local_memaddr``
    (``-gpgpu_local_mem_map 1``); returns one (lanes, addresses, size) group per 4-byte word
    of a wide access (GPGPU-Sim splits local accesses over 4 bytes into 4-byte accesses)."""
    tid = hw_tid_base + lanes.astype(np.int64)
    thread_base = 4 * (padded_cta_threads * (sid + n_shader * (tid // padded_cta_threads))
                       + tid % padded_cta_threads)
    max_threads = padded_cta_threads * max(1, max_cta_per_core) * n_shader
    a = addrs.astype(np.int64)
    if size >= 4:
        n = size // 4
        out = []
        for i in range(n):
            word = a // 4 + i
            out.append((lanes, (word * max_threads * 4 + thread_base + LOCAL_BASE).astype(np.int64), 4))
        return out
    word = a // 4
    return [(lanes, (word * max_threads * 4 + thread_base + a % 4 + LOCAL_BASE).astype(np.int64), size)]


#: shared_conflict_degree's memo, keyed (address bytes, lane bytes or b"" for one sub-warp,
#: banks, sub-warps); ``LdstUnit.issue`` looks it up inline with the same key
_DEGREE_MEMO: dict[tuple[bytes, bytes, int, int], int] = {}


def shared_conflict_degree(lanes: np.ndarray, addrs: np.ndarray, n_banks: int, warp_parts: int) -> int:
    """Cycles a shared-memory instruction occupies the bank stage: per sub-warp the largest
    number of distinct 4-byte words mapped to one bank, summed over sub-warps.  (Plain Python
    on the <= 32 lanes: cheaper than numpy at this size.)  Kernels repeat a few access
    patterns (a tile row, a broadcast), so the degree is memoised on the raw lane/address
    bytes (a bounded table, cleared when full)."""
    if lanes.size == 0:
        return 0
    key = (addrs.tobytes(), lanes.tobytes() if warp_parts > 1 else b"", n_banks, warp_parts)
    d = _DEGREE_MEMO.get(key)
    if d is None:
        if len(_DEGREE_MEMO) >= 8192:
            _DEGREE_MEMO.clear()
        d = _DEGREE_MEMO[key] = _conflict_degree(lanes, addrs, n_banks, warp_parts)
    return d


def _conflict_degree(lanes: np.ndarray, addrs: np.ndarray, n_banks: int, warp_parts: int) -> int:
    words = [a >> 2 for a in addrs.tolist()]
    parts = max(1, warp_parts)
    if parts == 1:
        groups = [set(words)]
    else:
        sub = 32 // parts
        gl: list[set[int]] = [set() for _ in range(parts)]
        for lane, w in zip(lanes.tolist(), words, strict=True):
            gl[min(lane // sub, parts - 1)].add(w)
        groups = gl
    total = 0
    for u in groups:
        if not u:
            continue
        counts: dict[int, int] = {}
        for w in u:
            b = w % n_banks
            counts[b] = counts.get(b, 0) + 1
        total += max(counts.values())
    return total


#: per-column multipliers of the row hash of shared_conflict_degrees (odd, fixed: multiples
#: of the 64-bit golden ratio, kept below 2**63)
_ROW_MULT = np.array([((0x9E3779B97F4A7C15 * (i + 1)) & ((1 << 63) - 1)) | 1 for i in range(32)], dtype=np.int64)
_ABSENT = np.int64((1 << 63) - 1)     # sorts after every key of a lane that accessed


def shared_conflict_degrees(slots: np.ndarray | None, addrs: np.ndarray, n_warps: int, n_banks: int,
                            warp_parts: int) -> np.ndarray:
    """:func:`shared_conflict_degree` of ``n_warps`` warps at once: ``addrs[i]`` is accessed
    by lane ``slots[i] % 32`` of warp ``slots[i] // 32`` (0 <= slot < 32 * n_warps, each slot
    at most once; ``slots`` None: ``addrs`` holds every lane of every warp in order); returns
    each warp's degree (0 for a warp without lanes), int64.

    The trace feed asks it once per shared-memory record for all the warps of a chunk.
    Warps with the same word per lane (CTAs tiling the same shared layout) are computed once:
    rows are grouped by a hash, each grouped row checked equal to its representative.  Then per
    row the keys (sub-warp, bank, word) are sorted, the distinct words counted per bank, the
    largest count taken per sub-warp and summed (C108)."""
    parts = max(1, warp_parts)
    if not len(addrs):
        return np.zeros(n_warps, dtype=np.int64)
    words = (addrs if addrs.dtype == np.uint64 else addrs.astype(np.uint64)) >> np.uint64(2)
    if parts > 32 or n_banks >= 1 << 18 or int(words.max()) >= 1 << 40:
        # outside the packed key's fields: one warp at a time
        sl = np.arange(len(addrs), dtype=np.int64) if slots is None else slots
        out = np.zeros(n_warps, dtype=np.int64)
        for w in range(n_warps):
            m = (sl >> 5) == w
            if m.any():
                out[w] = _conflict_degree(sl[m] & 31, addrs[m], n_banks, warp_parts)
        return out
    M: np.ndarray
    if slots is None and len(words) == n_warps * 32:
        M = words.view(np.int64).reshape(n_warps, 32)
    else:
        M = np.full(n_warps * 32, -1, dtype=np.int64)
        M[np.arange(len(words)) if slots is None else slots] = words.view(np.int64)
        M = M.reshape(n_warps, 32)
    h = (M * _ROW_MULT).sum(axis=1)         # (wraps around: a hash)
    _u, first, inv = np.unique(h, return_index=True, return_inverse=True)
    U = M[first]
    if not np.array_equal(U[inv], M):       # a hash collision: every row on its own
        U = M
        inv = np.arange(n_warps)
    return _row_degrees(U, n_banks, parts)[inv]


def _row_degrees(U: np.ndarray, n_banks: int, parts: int) -> np.ndarray:
    """Degree of each row of ``U`` (32 words per row, -1 for a lane without access)."""
    nr = len(U)
    present = U >= 0
    bank = U % n_banks
    key = (bank << 40) | U
    if parts > 1:
        sub = 32 // parts
        part = np.minimum(np.arange(32, dtype=np.int64) // sub, parts - 1)
        key |= part << 58
    key = np.where(present, key, _ABSENT)
    key.sort(axis=1)
    new = np.empty(key.shape, dtype=bool)
    new[:, 0] = True
    np.not_equal(key[:, 1:], key[:, :-1], out=new[:, 1:])
    new &= key != _ABSENT
    # group (row, sub-warp, bank) of each distinct word
    grp = (np.arange(nr, dtype=np.int64)[:, None] * parts + (key >> 58)) * n_banks + ((key >> 40) & ((1 << 18) - 1))
    cnt = np.bincount(grp[new], minlength=nr * parts * n_banks)
    return cnt.reshape(nr * parts, n_banks).max(axis=1).reshape(nr, parts).sum(axis=1)


def texture_lines(mem: list, line_bytes: int) -> list[int]:
    """The texture-cache accesses of one ``tex``/``tld4`` warp instruction
    (``generate_mem_accesses`` for ``tex_space``; C110): one access per distinct
    ``line_bytes`` block (the L1T line) touched, in ascending address order -- the order
    GPGPU-Sim fills its access queue, which is served from the back.

    GPGPU-Sim keeps one address per thread for a texture fetch; the functional engine reports
    every texel the sampler reads (4 for bilinear 2-D filtering, one record per corner), so
    each lane contributes its *first* texel.  (GPGPU-Sim's 2-D textures use its own 64-byte
    tiled layout of the CUDA array; ours are the row-major device addresses of the texels.)"""
    seen = 0
    blocks: set[int] = set()
    mask = ~(line_bytes - 1)
    for acc in mem:
        if acc.space != "tex":
            continue
        for lane, a in zip(acc.lanes.tolist(), acc.addrs.tolist(), strict=True):
            if not (seen >> lane) & 1:
                seen |= 1 << lane
                blocks.add(int(a) & mask)
    return sorted(blocks)
