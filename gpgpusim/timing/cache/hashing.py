"""Set-index functions of the caches and the address decoder (GPGPU-Sim ``tag_array::set_index``,
``ipoly_hash_function``, ``bitwise_hash_function``; checklist C111)."""

from __future__ import annotations

def ipoly_hash(higher: int, index: int, nbanks: int) -> int:
    """``ipoly_hash_function`` (hashing.cc): IPOLY(5)/(37)/(67) for 16, 32 and 64 sets/banks.

    The hash is linear over GF(2) and reads bits 0..18 of ``higher``: it is evaluated as two
    table look-ups (bits 0..9, 10..19) XOR the low bits of ``index``."""
    t = _IPOLY_TABLES.get(nbanks)
    if t is None:
        if nbanks not in (16, 32, 64):
            raise ValueError(f"IPOLY hashing supports 16, 32 or 64 sets/banks, not {nbanks}")
        t = _IPOLY_TABLES[nbanks] = (
            [_ipoly_hash_bits(h, 0, nbanks) for h in range(1024)],
            [_ipoly_hash_bits(h << 10, 0, nbanks) for h in range(1024)])
    return t[0][higher & 1023] ^ t[1][(higher >> 10) & 1023] ^ (index & (nbanks - 1))


_IPOLY_TABLES: dict[int, tuple[list[int], list[int]]] = {}


def _ipoly_hash_bits(higher: int, index: int, nbanks: int) -> int:
    """The bit-by-bit definition of :func:`ipoly_hash` (builds its tables)."""
    def a(i: int) -> int:
        return higher >> i & 1

    def b(i: int) -> int:
        return index >> i & 1
    bits: tuple[int, ...]
    if nbanks == 16:
        bits = (a(11) ^ a(10) ^ a(9) ^ a(8) ^ a(6) ^ a(4) ^ a(3) ^ a(0) ^ b(0),
                a(12) ^ a(8) ^ a(7) ^ a(6) ^ a(5) ^ a(3) ^ a(1) ^ a(0) ^ b(1),
                a(9) ^ a(8) ^ a(7) ^ a(6) ^ a(4) ^ a(2) ^ a(1) ^ b(2),
                a(10) ^ a(9) ^ a(8) ^ a(7) ^ a(5) ^ a(3) ^ a(2) ^ b(3))
    elif nbanks == 32:
        bits = (a(13) ^ a(12) ^ a(11) ^ a(10) ^ a(9) ^ a(6) ^ a(5) ^ a(3) ^ a(0) ^ b(0),
                a(14) ^ a(13) ^ a(12) ^ a(11) ^ a(10) ^ a(7) ^ a(6) ^ a(4) ^ a(1) ^ b(1),
                a(14) ^ a(10) ^ a(9) ^ a(8) ^ a(7) ^ a(6) ^ a(3) ^ a(2) ^ a(0) ^ b(2),
                a(11) ^ a(10) ^ a(9) ^ a(8) ^ a(7) ^ a(4) ^ a(3) ^ a(1) ^ b(3),
                a(12) ^ a(11) ^ a(10) ^ a(9) ^ a(8) ^ a(5) ^ a(4) ^ a(2) ^ b(4))
    elif nbanks == 64:
        bits = (a(18) ^ a(17) ^ a(16) ^ a(15) ^ a(12) ^ a(10) ^ a(6) ^ a(5) ^ a(0) ^ b(0),
                a(15) ^ a(13) ^ a(12) ^ a(11) ^ a(10) ^ a(7) ^ a(5) ^ a(1) ^ a(0) ^ b(1),
                a(16) ^ a(14) ^ a(13) ^ a(12) ^ a(11) ^ a(8) ^ a(6) ^ a(2) ^ a(1) ^ b(2),
                a(17) ^ a(15) ^ a(14) ^ a(13) ^ a(12) ^ a(9) ^ a(7) ^ a(3) ^ a(2) ^ b(3),
                a(18) ^ a(16) ^ a(15) ^ a(14) ^ a(13) ^ a(10) ^ a(8) ^ a(4) ^ a(3) ^ b(4),
                a(17) ^ a(16) ^ a(15) ^ a(14) ^ a(11) ^ a(9) ^ a(5) ^ a(4) ^ b(5))
    else:
        raise ValueError(f"IPOLY hashing supports 16, 32 or 64 sets/banks, not {nbanks}")
    return sum(bit << i for i, bit in enumerate(bits))


def bitwise_xor_hash(higher: int, index: int, nbanks: int) -> int:
    """``bitwise_hash_function``."""
    return index ^ (higher & (nbanks - 1))


def hash_set_index(addr: int, nset: int, line_log2: int, function: str) -> int:
    """``cache_config::hash_function`` (checklist C128)."""
    nset_log2 = nset.bit_length() - 1
    if function == "L":
        return (addr >> line_log2) & (nset - 1)
    if function == "H":
        if nset not in (32, 64):
            raise ValueError("the Fermi set-index hash needs 32 or 64 sets")
        lower = (addr >> line_log2) & 0x1F
        upper = (addr & 0xE000) >> 13
        upper |= (addr & 0x20000) >> 14
        upper |= (addr & 0x80000) >> 15
        s = lower ^ upper
        if nset == 64:
            s |= (addr & 0x1000) >> 7
        return s
    higher = addr >> (line_log2 + nset_log2)
    index = (addr >> line_log2) & (nset - 1)
    if function == "X":
        return bitwise_xor_hash(higher, index, nset)
    if function == "P":
        return ipoly_hash(higher, index, nset)
    return 0  # 'C' custom: not implemented in GPGPU-Sim either (set 0)
