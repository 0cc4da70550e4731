"""Physical address -> (chip, sub-partition, bank, row, column) decoding.

GPGPU-Sim counterpart: ``linear_to_raw_address_translation`` (addrdec.cc).  Checklist C129,
C173, C174.  Masks come from ``-gpgpu_mem_addr_mapping`` (``dramid@N;`` + 64-letter map) or the
``-gpgpu_mem_address_mask`` presets; with a power-of-two channel count the chip bits are
inserted at the ``dramid`` bit, otherwise the chip is ``(addr >> dramid) % n_channel`` and the
rest is the quotient ("gap" case).  The sub-partition is ``chip * n_sub + (bank & (n_sub-1))``,
then re-hashed by ``-gpgpu_memory_partition_indexing`` (0 none, 1 XOR, 2 IPOLY; 3 random and
4 custom are not modelled and act as 0).
"""

from __future__ import annotations

from typing import Any, Callable

from ..cache.hashing import bitwise_xor_hash, ipoly_hash

_PRESETS = {  # -gpgpu_mem_address_mask: (chip start, bank, row, column masks)
    0: (10, 0x300, 0x7FFE000, 0x1CFF),
    1: (13, 0x1800, 0x7FFE000, 0x7FF),
    2: (11, 0x1800, 0x7FFE000, 0x7FF),
    3: (11, 0x1800, 0xFFFE000, 0x7FF),
    5: (5, 0x1800, 0x7FFE000, 0x7FF), 6: (6, 0x1800, 0x7FFE000, 0x7FF),
    14: (14, 0x1800, 0x7FFE000, 0x7FF), 15: (15, 0x1800, 0x7FFE000, 0x7FF),
    16: (16, 0x1800, 0x7FFE000, 0x7FF),
    100: (1, 0x3, 0x7FFE000, 0x1FFC), 103: (3, 0x3, 0x7FFE000, 0x1FFC),
    106: (6, 0x1800, 0x7FFE000, 0x7FF), 160: (6, 0x300, 0x7FFE000, 0x1CFF),
}
_M64 = (1 << 64) - 1


def _positions(mask: int) -> list[int]:
    return [i for i in range(64) if mask >> i & 1]


def _pack(positions: list[int], value: int) -> int:
    """``addrdec_packbits``: the bits of ``value`` at ``positions`` packed from bit 0 up."""
    r = 0
    for k, i in enumerate(positions):
        if value >> i & 1:
            r |= 1 << k
    return r


def _packer(positions: list[int]) -> Callable[[int], int]:
    """A table-driven :func:`_pack` for fixed ``positions``: one 256-entry table per address
    byte that has a selected bit."""
    tables = []
    for byte in range(8):
        sel = [(k, i - 8 * byte) for k, i in enumerate(positions) if 8 * byte <= i < 8 * byte + 8]
        if sel:
            tables.append((8 * byte, [sum(1 << k for k, b in sel if v >> b & 1) for v in range(256)]))
    if not tables:
        return lambda value: 0
    if len(tables) == 1:
        (sh, t), = tables
        return lambda value: t[value >> sh & 255]
    if len(tables) == 2:
        (s0, t0), (s1, t1) = tables
        return lambda value: t0[value >> s0 & 255] | t1[value >> s1 & 255]
    if len(tables) == 3:
        (s0, t0), (s1, t1), (s2, t2) = tables
        return lambda value: t0[value >> s0 & 255] | t1[value >> s1 & 255] | t2[value >> s2 & 255]

    def pack(value: int) -> int:
        r = 0
        for sh, t in tables:
            r |= t[value >> sh & 255]
        return r
    return pack


class AddressDecoder:
    """Decode byte addresses the way GPGPU-Sim's memory system sees them."""

    def __init__(self, mapping: Any, n_channel: int, n_sub: int, partition_indexing: int = 0,
                 address_mask_preset: int = 0) -> None:
        self.n_channel = n_channel
        self.n_sub = n_sub
        self.indexing = partition_indexing
        nchipbits = max(n_channel, 1).bit_length() - 1
        self.log2channel = nchipbits
        self.log2sub = n_sub.bit_length() - 1
        self.gap = n_channel != 1 << nchipbits
        self.next_pow2_channel = 1 << (n_channel - 1).bit_length() if n_channel > 1 else 1
        start, bk, row, col = _PRESETS.get(address_mask_preset, _PRESETS[0])
        chip, burst = 0, 0xF
        if mapping is not None:
            start_opt, masks = mapping.field_masks()
            start = start_opt if start_opt is not None else -1
            chip, bk, row, col, burst = masks["CHIP"], masks["BK"], masks["ROW"], masks["COL"], masks["BURST"]
        if start != -1 and not self.gap:
            low = (1 << start) - 1
            bk = (((bk & ~low) << nchipbits) | (bk & low)) & _M64
            row = (((row & ~low) << nchipbits) | (row & low)) & _M64
            col = (((col & ~low) << nchipbits) | (col & low)) & _M64
            for i in range(start, start + nchipbits):
                chip |= 1 << i
        self.chip_start = start
        self.masks = {"CHIP": chip, "BK": bk, "ROW": row, "COL": col, "BURST": burst}
        self._pos = {k: _positions(v) for k, v in self.masks.items()}
        sub_mask = 0
        if n_sub > 1:
            want = self.log2sub
            for i in self._pos["BK"]:
                if want:
                    sub_mask |= 1 << i
                    want -= 1
        self.sub_partition_id_mask = sub_mask
        self._part_keep = _positions(~(chip | sub_mask) & _M64)
        self._pk = {k: _packer(v) for k, v in self._pos.items()}
        self._pk_part = _packer(self._part_keep)
        self._pk_gap_part = _packer(_positions(~sub_mask & _M64))
        # The lowest ``_low`` address bits are column bits 0.._low-1 and nothing else:
        # decoding is memoised per ``addr >> _low`` (chip, sub-partition, bank, row, and the
        # column of the address with those bits cleared), and the low bits are added back
        low = 0
        pos_col = self._pos["COL"]
        others = chip | bk | row
        while (low < len(pos_col) and pos_col[low] == low and not others >> low & 1
               and (not self.gap or low < start)):
            low += 1
        self._low = low
        self._low_mask = (1 << low) - 1
        self._memo: dict[int, tuple[int, int, int, int, int]] = {}
        # Without the gap, every field (packed bits; the sub-partition and chip, hashed or
        # not, as XOR-linear functions of packed bits with a power-of-two sub-partition
        # count) is linear over GF(2) in the address bits, zero at
        # address 0: the decoding of an address is the field-wise XOR of the decodings of its
        # bits at and above ``_split`` and of its bits below.  Decoding then combines two
        # cached halves (the high half per ``addr >> _split``, the middle ``_MID_BITS`` bits
        # above ``_low`` in a table) instead of packing every field, and needs no memo.
        self._split = 0
        if not self.gap and n_sub & (n_sub - 1) == 0:
            self._split = low + self._MID_BITS
            self._hi: dict[int, tuple[int, int, int, int, int]] = {}
            self._mid: list[tuple[int, int, int, int, int] | None] = [None] * (1 << self._MID_BITS)

    #: address bits above ``_low`` decoded by table in the split decoding
    _MID_BITS = 12
    #: bound of the memos (the unsplit decoding's per-block memo, the split decoding's high
    #: halves; cleared when full): ~250 bytes an entry
    _MEMO_MAX = 1 << 13

    def partition_granule(self) -> int:
        """Bit position ``g`` such that :meth:`partition_address` keeps the address bits below
        ``g`` in place and computes the bits above from the address bits above ``g`` only (the
        lowest chip or sub-partition bit; the chip start with a non-power-of-two channel
        count): a function of the partition address's bits at and above ``g`` is a function of
        ``addr >> g``."""
        removed = (self.masks["CHIP"] | self.sub_partition_id_mask) & _M64
        g = (removed & -removed).bit_length() - 1 if removed else 64
        if self.gap and self.chip_start >= 0:
            g = min(g, self.chip_start)
        return g

    def partition_address(self, addr: int) -> int:
        """``partition_address``: the address with chip and sub-partition bits removed (the L2
        hashes its sets with it)."""
        if not self.gap:
            return self._pk_part(addr)
        s = self.chip_start
        pa = ((addr >> s) // self.n_channel) << s | (addr & ((1 << s) - 1))
        return self._pk_gap_part(pa)

    def decode(self, addr: int) -> tuple[int, int, int, int, int]:
        """``addrdec_tlx`` -> (chip, sub_partition (global id), bank, row, column)."""
        r = self._decoded(addr)
        return r[0], r[1], r[2], r[3], r[4] | (addr & self._low_mask)

    def _decoded(self, addr: int) -> tuple[int, int, int, int, int]:
        """The memo entry of ``addr``'s ``_low``-bit block: (chip, sub_partition, bank, row,
        column), the column of the block's first address."""
        key = addr >> self._low
        if self._split:
            # two table lookups and an XOR: cheap enough that a memo per block, which would
            # hold ~250 bytes a block of the footprint, is not worth its memory
            return self._combined(key << self._low)
        memo = self._memo
        r = memo.get(key)
        if r is None:
            base = key << self._low
            r = self._decode(base)
            if len(memo) >= self._MEMO_MAX:
                memo.clear()
            memo[key] = r
        return r

    def _combined(self, base: int) -> tuple[int, int, int, int, int]:
        """The memo entry of ``base`` (low ``_low`` bits clear) as the XOR of the entries of
        its high and middle bits (see ``_split``): the same chip, sub-partition (C129), bank,
        row and column (C173) as decoding ``base`` itself."""
        split = self._split
        hi = base >> split
        h = self._hi.get(hi)
        if h is None:
            a = hi << split
            h = self._decode(a)
            if len(self._hi) >= self._MEMO_MAX:
                self._hi.clear()
            self._hi[hi] = h
        low = self._low
        k = (base >> low) & ((1 << self._MID_BITS) - 1)
        m = self._mid[k]
        if m is None:
            a = k << low
            m = self._mid[k] = self._decode(a)
        return h[0] ^ m[0], h[1] ^ m[1], h[2] ^ m[2], h[3] ^ m[3], h[4] ^ m[4]

    def _decode(self, addr: int) -> tuple[int, int, int, int, int]:
        p = self._pk
        if not self.gap:
            chip = p["CHIP"](addr)
            bk = p["BK"](addr)
            row = p["ROW"](addr)
            col = p["COL"](addr)
            high = addr >> (self.chip_start + self.log2channel + self.log2sub) if self.chip_start >= 0 else 0
        else:
            s = self.chip_start
            chip = (addr >> s) % self.n_channel
            rest = ((addr >> s) // self.n_channel) << s | (addr & ((1 << s) - 1))
            high = (addr >> s) // self.n_channel
            bk = p["BK"](rest)
            row = p["ROW"](rest)
            col = p["COL"](rest)
        n_sub = self.n_sub
        if self.indexing == 1:
            chip = bitwise_xor_hash(high, chip, self.n_channel)
        elif self.indexing == 2:
            sp = chip * n_sub + (bk & (n_sub - 1))
            sp = ipoly_hash(high, sp, self.next_pow2_channel * n_sub)
            if self.gap:
                sp %= self.n_channel * n_sub
            return sp // n_sub, sp, bk, row, col
        return chip, chip * n_sub + (bk & (n_sub - 1)), bk, row, col

    def apply(self, fetch: Any) -> None:
        """Fill a fetch's decoded fields from its address."""
        addr = fetch.addr
        fetch.chip, fetch.sub_partition, fetch.bank, fetch.row, col = self._decoded(addr)
        fetch.col = col | (addr & self._low_mask)

    @classmethod
    def from_config(cls, cfg: Any) -> AddressDecoder:
        return cls(cfg.get("gpgpu_mem_addr_mapping"), int(cfg.get("gpgpu_n_mem")),
                   int(cfg.get("gpgpu_n_sub_partition_per_mchannel")),
                   int(cfg.get("gpgpu_memory_partition_indexing")), _opt(cfg, "gpgpu_mem_address_mask", 0))


def _opt(cfg: Any, name: str, default: Any) -> Any:
    try:
        v = cfg.get(name)
    except Exception:  # noqa: BLE001 - option unknown to this config
        return default
    return default if v is None else v
