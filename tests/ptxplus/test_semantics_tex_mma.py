"""Semantics of the SASS texture, surface and tensor-core forms (TEX, TLD, TLD4, TXQ, SULD, SUST,
HMMA, IMMA, LDSM, MOVM) against values computed here one element at a time.

The frame is :mod:`tests.ptxplus.ptxplus_helpers`'s (each thread's four input words in R8-R11,
R0-R3 stored back); the kernel's third parameter (``c[0x0][0x170]``, handle index 0x5c) is a
texture or surface object registered for the test."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from gpgpusim.functional import texture as T
from gpgpusim.functional.engine import launch
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.ptx import parse_ptx
from gpgpusim.ptxplus import mark_sass
from gpgpusim.ptxplus.convert import KernelContext, ParamSlot, UnsupportedSass, convert_kernel
from tests.ptxplus.ptxplus_helpers import POST, PRE, sass_function


def _f(x: float) -> int:
    return int(struct.unpack("<I", struct.pack("<f", x))[0])


class _Dev:
    def __init__(self) -> None:
        self.g = GlobalMemory()
        self.handles: list[int] = []

    def alloc(self, arr: np.ndarray) -> int:
        a = self.g.allocate(max(arr.nbytes, 1))
        self.g.write(a, np.ascontiguousarray(arr))
        return a

    def obj(self, kind: str, data: np.ndarray, fmt: T.ChannelFormat, res: int, dims: int, **kw) -> int:
        h, w = (data.shape[0], data.shape[1]) if dims == 2 else (1, data.shape[0])
        pitch = data.strides[0] if dims == 2 else data.nbytes
        o = T.TexObject(kind, res, self.alloc(data), fmt, w, h, 1, dims, pitch, owner="test", **kw)
        self.handles.append(T.register(o))
        return self.handles[-1]

    def run(self, body: list[str], inputs, handle: int = 0, smem: int = 0) -> np.ndarray:
        lines = PRE + body + POST
        lines.append(f"BRA {16 * len(lines):#x} ;")
        ctx = KernelContext(name="k", params=[ParamSlot("k_in", 0, 8), ParamSlot("k_out", 8, 8),
                                              ParamSlot("k_obj", 16, 8)],
                            param_decls=[".param .u64 k_in", ".param .u64 k_out", ".param .u64 k_obj"],
                            static_smem=smem)
        text = ".version 8.0\n.target sm_75\n.address_size 64\n\n" + convert_kernel(sass_function("k", lines), ctx)
        m = parse_ptx(text, "t.ptxplus")
        mark_sass(m.functions.values(), text)        # as gpgpusim.ptxplus.apply does
        lm = load_module(m, self.g)
        arr = np.ascontiguousarray(np.asarray(inputs, dtype=np.int64).astype(np.uint32).reshape(-1, 4))
        a_in, a_out = self.alloc(arr), self.alloc(np.zeros_like(arr))
        launch(lm, "k", (1, 1, 1), (len(arr), 1, 1), 0, struct.pack("<QQQ", a_in, a_out, handle), gmem=self.g)
        return self.g.read(a_out, arr.nbytes).view(np.uint32).reshape(-1, 4)


@pytest.fixture
def dev():
    d = _Dev()
    yield d
    for h in d.handles:
        T.OBJECTS.pop(h, None)


F32 = T.ChannelFormat((32, 0, 0, 0), T.KIND_FLOAT)
IMG = (np.arange(20, dtype=np.float32).reshape(4, 5) * np.float32(1.5) - np.float32(3.0))


def test_tex_2d_explicit_level_one_component_clamped(dev):
    """TEX.SCR.LL RZ, R0, R8, R10, ..., 2D, 0x1: x, y in R8, R9, the level in R10 (level 0
    only: no mipmaps); point sampling with clamp, the float's bits in R0."""
    h = dev.obj("tex", IMG, F32, T.RES_ARRAY, 2, address_mode=(T.ADDR_CLAMP,) * 3)
    pts = [(0.0, 0.0), (1.5, 2.5), (4.9, 3.9), (-3.0, 1.2), (7.0, -1.0), (2.2, 9.0)]
    out = dev.run(["TEX.SCR.LL RZ, R0, R8, R10, 0x0, 0x5c, 2D, 0x1 ;"],
                  [[_f(x), _f(y), _f(-32.0), 0] for x, y in pts], h)
    for (x, y), row in zip(pts, out, strict=True):
        i, j = min(max(int(np.floor(x)), 0), 4), min(max(int(np.floor(y)), 0), 3)
        assert int(row[0]) == _f(float(IMG[j, i])), (x, y)
        assert list(row[1:]) == [0, 0, 0]


def test_tex_four_components_go_to_rd1_pair_then_rd0_pair(dev):
    """Mask 0xf (none printed): x, y in Rd1, Rd1+1 (R0, R1), z, w in Rd0, Rd0+1 (R2, R3); a
    float4 texel of a linear-filtered normalised uchar4 array is float bits."""
    img = np.array([[[0, 255, 51, 102], [255, 0, 102, 51]]], np.uint8)     # 1 x 2 uchar4
    h = dev.obj("tex", img.reshape(1, 8), T.ChannelFormat((8, 8, 8, 8), T.KIND_UNSIGNED), T.RES_ARRAY, 2,
                address_mode=(T.ADDR_CLAMP,) * 3, read_normalized=True)
    T.OBJECTS[h].width = 2
    out = dev.run(["TEX.SCR.LL R2, R0, R8, R10, 0x0, 0x5c, 2D ;"],
                  [[_f(0.5), _f(0.5), _f(0.0), 0], [_f(1.5), _f(0.5), 0, 0]], h)
    assert [int(v) for v in out[0]] == [_f(0.0), _f(1.0), _f(np.float32(51) / np.float32(255)),
                                        _f(np.float32(102) / np.float32(255))]
    assert [int(v) for v in out[1]] == [_f(1.0), _f(0.0), _f(np.float32(102) / np.float32(255)),
                                        _f(np.float32(51) / np.float32(255))]


def test_tld_1d_integer_texels_raw_and_out_of_range_zero(dev):
    """TLD.SCR.LZ R2, R0, R8, ..., 1D: int4 texel i (integer coordinate in R8) as integers;
    indices outside the linear resource read 0."""
    data = (np.arange(40, dtype=np.int32).reshape(10, 4) * 7 - 100)
    h = dev.obj("tex", data.reshape(-1), T.ChannelFormat((32, 32, 32, 32), T.KIND_SIGNED), T.RES_LINEAR, 1)
    T.OBJECTS[h].width = 10
    idx = [0, 3, 9, 10, -1]
    out = dev.run(["TLD.SCR.LZ R2, R0, R8, 0x0, 0x5c, 1D ;"], [[i, 0, 0, 0] for i in idx], h)
    for i, row in zip(idx, out, strict=True):
        want = data[i] if 0 <= i < 10 else np.zeros(4, np.int32)
        assert [int(v) for v in row] == [int(v) & 0xFFFFFFFF for v in want], i


def test_tld4_gathers_one_component_of_the_four_texels(dev):
    """TLD4.SCR.R R2, R0, R8, R9, ..., 2D: x in R8, y in R9; the four texels around (x, y) -
    (i, j+1), (i+1, j+1), (i+1, j), (i, j) for i = floor(x - 0.5), j = floor(y - 0.5)."""
    h = dev.obj("tex", IMG, F32, T.RES_ARRAY, 2, address_mode=(T.ADDR_CLAMP,) * 3)
    out = dev.run(["TLD4.SCR.R R2, R0, R8, R9, 0x0, 0x5c, 2D ;"], [[_f(1.6), _f(2.4), 0, 0]], h)
    assert [int(v) for v in out[0]] == [_f(float(IMG[2, 1])), _f(float(IMG[2, 2])), _f(float(IMG[1, 2])),
                                        _f(float(IMG[1, 1]))]


def test_texture_coordinates_outside_ra_pair_are_refused():
    d = _Dev()
    with pytest.raises(UnsupportedSass, match="TLD4.SCR.R"):
        d.run(["TLD4.SCR.R R2, R0, R8, R10, 0x0, 0x5c, 2D ;"], [[0, 0, 0, 0]], 0)


def _surface(dev: _Dev, img: np.ndarray) -> int:
    bits = img.dtype.itemsize * 8
    kind = T.KIND_SIGNED if img.dtype.kind == "i" else T.KIND_UNSIGNED
    return dev.obj("surf", img, T.ChannelFormat((bits, 0, 0, 0), kind), T.RES_ARRAY, 2)


def test_suld_modes_ignore_reads_zero_clamp_clamps(dev):
    """SULD.D.BA.2D: x in bytes (R8), y (R9); .IGN reads 0 outside, no suffix clamps x and y."""
    img = np.arange(24, dtype=np.int32).reshape(4, 6) * 11 - 40
    h = _surface(dev, img)
    pts = [(0, 0), (5, 3), (2, 1), (6, 1), (-1, 2), (3, 4), (3, -2)]
    out = dev.run(["SULD.D.BA.2D.STRONG.CTA.IGN R0, [R8], 0x0, 0x5c ;",
                   "SULD.D.BA.2D.STRONG.CTA R1, [R8], 0x0, 0x5c ;"], [[4 * x, y, 0, 0] for x, y in pts], h)
    for (x, y), row in zip(pts, out, strict=True):
        inside = 0 <= x < 6 and 0 <= y < 4
        assert int(row[0]) == (int(img[y, x]) & 0xFFFFFFFF if inside else 0), (x, y)
        assert int(row[1]) == int(img[min(max(y, 0), 3), min(max(x, 0), 5)]) & 0xFFFFFFFF, (x, y)


def test_sust_then_suld_64_and_signed_bytes(dev):
    """SUST.D.BA.2D.64 stores R10, R11 at (x bytes R8, y R9); SULD.D.BA.2D.64 reads them back into
    R0, R1; .U8 / .S8 loads of a byte surface zero- and sign-extend."""
    img = np.zeros((2, 8), np.int32)
    h = _surface(dev, img)
    out = dev.run(["SUST.D.BA.2D.64.STRONG.CTA.TRAP [R8], R10, 0x0, 0x5c ;",
                   "SULD.D.BA.2D.64.STRONG.CTA.TRAP R0, [R8], 0x0, 0x5c ;"],
                  [[8 * (t // 2), t % 2, 100 + t, -t] for t in range(8)], h)
    for t in range(8):
        assert [int(out[t][0]), int(out[t][1])] == [100 + t, (-t) & 0xFFFFFFFF]
    b = np.array([[0x80, 0x7F, 0xFF, 0x01]], np.uint8)
    hb = _surface(dev, b)
    out = dev.run(["SULD.D.BA.2D.U8.STRONG.CTA.TRAP R0, [R8], 0x0, 0x5c ;",
                   "SULD.D.BA.2D.S8.STRONG.CTA.TRAP R1, [R8], 0x0, 0x5c ;"], [[x, 0, 0, 0] for x in range(4)], hb)
    assert [int(v) for v in out[:, 0]] == [0x80, 0x7F, 0xFF, 0x01]
    assert [int(v) for v in out[:, 1]] == [0xFFFFFF80, 0x7F, 0xFFFFFFFF, 0x01]


# --- tensor cores: fragments as the PTX ISA lays them out ("Matrix fragments for mma.m16n8k8"),
# written out here per element
def _h(x: float) -> int:
    return int(np.float16(x).view(np.uint16))


def _pack(lo: float, hi: float) -> int:
    return _h(lo) | (_h(hi) << 16)


def _lanes():
    return range(32)


def test_hmma_1688_f32_and_f16_accumulators(dev):
    """HMMA.1688.F32 R0, R8, R10, R0 (C = 0) and HMMA.1688.F16: D = A (16x8) x B (8x8), A row
    g + 8 r (register r = 0, 1), columns 2 t, 2 t + 1; B rows 2 t, 2 t + 1, column g; C/D f32
    element i at row g + 8 (i // 2), column 2 t + i % 2 (g = lane / 4, t = lane % 4)."""
    A = np.array([[((3 * r + 5 * k) % 7) - 3 for k in range(8)] for r in range(16)], np.float64)
    B = np.array([[((2 * k + 3 * n) % 5) - 2 for n in range(8)] for k in range(8)], np.float64)
    ins = []
    for ln in _lanes():
        g, t = ln // 4, ln % 4
        ins.append([_pack(A[g, 2 * t], A[g, 2 * t + 1]), _pack(A[g + 8, 2 * t], A[g + 8, 2 * t + 1]),
                    _pack(B[2 * t, g], B[2 * t + 1, g]), 0])
    D = A @ B
    out = dev.run(["HMMA.1688.F32 R0, R8, R10, R0 ;"], ins)
    for ln in _lanes():
        g, t = ln // 4, ln % 4
        want = [D[g + 8 * (i // 2), 2 * t + i % 2] for i in range(4)]
        assert [int(v) for v in out[ln]] == [_f(w) for w in want], ln
    # f16 accumulators: C = 0.5 everywhere, D in two registers of f16 pairs
    out = dev.run(["MOV R2, 0x38003800 ;", "MOV R3, 0x38003800 ;", "HMMA.1688.F16 R0, R8, R10, R2 ;"], ins)
    for ln in _lanes():
        g, t = ln // 4, ln % 4
        assert int(out[ln][0]) == _pack(D[g, 2 * t] + 0.5, D[g, 2 * t + 1] + 0.5), ln
        assert int(out[ln][1]) == _pack(D[g + 8, 2 * t] + 0.5, D[g + 8, 2 * t + 1] + 0.5), ln


def test_hmma_16816_f32(dev):
    """HMMA.16816.F32 R0, R8, R8, R0: A (16x16) in R8-R11 (register r: row g + 8 (r % 2),
    columns 2 t + 8 (r // 2) and +1), B (16x8) in R8, R9 (register r: rows 2 t + 8 r and +1,
    column g) - the same words read as both."""
    vals = [[((ln * 3 + r * 5 + h) % 9) - 4 for h in (0, 1)] for ln in _lanes() for r in range(4)]
    ins = [[_pack(*vals[4 * ln + r]) for r in range(4)] for ln in _lanes()]
    A = np.zeros((16, 16))
    B = np.zeros((16, 8))
    for ln in _lanes():
        g, t = ln // 4, ln % 4
        for r in range(4):
            for h in (0, 1):
                A[g + 8 * (r % 2), 2 * t + h + 8 * (r // 2)] = vals[4 * ln + r][h]
                if r < 2:
                    B[2 * t + h + 8 * r, g] = vals[4 * ln + r][h]
    D = A @ B
    out = dev.run(["MOV R0, RZ ;", "HMMA.16816.F32 R0, R8, R8, R0 ;"], ins)
    for ln in _lanes():
        g, t = ln // 4, ln % 4
        assert [int(v) for v in out[ln]] == [_f(D[g + 8 * (i // 2), 2 * t + i % 2]) for i in range(4)], ln


@pytest.mark.parametrize("signed", [True, False])
def test_imma_8816_s8_u8(dev, signed):
    """IMMA.8816.S8.S8 / .U8.U8 R0, R8, R9, R10: A (8x16) bytes 4 t..4 t+3 of row g in R8, B
    (16x8) rows 4 t..4 t+3 of column g in R9, C/D s32 (row g, columns 2 t, 2 t + 1) in R10, R11
    -> R0, R1; the products of bytes 0x80-0xff differ by signedness."""
    rng = np.random.default_rng(5)
    a = rng.integers(0, 256, (32, 4))
    b = rng.integers(0, 256, (32, 4))
    c = rng.integers(-1000, 1000, (32, 2))
    conv = (lambda x: x - 256 * (x >= 128)) if signed else (lambda x: x)
    A = np.zeros((8, 16), np.int64)
    B = np.zeros((16, 8), np.int64)
    C = np.zeros((8, 8), np.int64)
    for ln in _lanes():
        g, t = ln // 4, ln % 4
        for j in range(4):
            A[g, 4 * t + j] = conv(a[ln, j])
            B[4 * t + j, g] = conv(b[ln, j])
        C[g, 2 * t], C[g, 2 * t + 1] = c[ln]
    D = A @ B + C
    word = lambda v: int(sum(int(x) << (8 * j) for j, x in enumerate(v)))  # noqa: E731
    ins = [[word(a[ln]), word(b[ln]), int(c[ln, 0]), int(c[ln, 1])] for ln in _lanes()]
    op = "IMMA.8816.S8.S8" if signed else "IMMA.8816.U8.U8"
    out = dev.run([f"{op} R0, R8, R9, R10 ;"], ins)
    for ln in _lanes():
        g, t = ln // 4, ln % 4
        assert [int(out[ln][0]), int(out[ln][1])] == [int(D[g, 2 * t]) & 0xFFFFFFFF,
                                                      int(D[g, 2 * t + 1]) & 0xFFFFFFFF], ln


def test_movm_transposes_the_warps_8x8_halves(dev):
    """MOVM.16.MT88 R0, R8: lane l holds (row l / 4, columns 2 (l % 4), +1); after it, the same
    positions of the transposed matrix."""
    M = np.arange(64).reshape(8, 8) * 3 + 1
    ins = [[M[ln // 4, 2 * (ln % 4)] | (M[ln // 4, 2 * (ln % 4) + 1] << 16), 0, 0, 0] for ln in _lanes()]
    out = dev.run(["MOVM.16.MT88 R0, R8 ;"], ins)
    for ln in _lanes():
        r, c0 = ln // 4, 2 * (ln % 4)
        assert int(out[ln][0]) == int(M[c0, r] | (M[c0 + 1, r] << 16)), ln


@pytest.mark.parametrize("trans", [False, True])
def test_ldsm_two_matrices_from_shared_rows(dev, trans):
    """LDSM.16.M88.2 R0, [R4] (.MT88: transposed): lanes 0-15 give the row addresses of matrices
    0 and 1 (16 bytes a row, rows stored out of order); lane l gets (row l / 4, columns 2 (l %
    4), +1) of each matrix in R0, R1."""
    # row q*8+r of the matrices lives at shared offset 16 * perm[q*8+r]
    perm = [(5 * i + 3) % 16 for i in range(16)]
    body = ["IMAD.SHL.U32 R5, R20, 0x4, RZ ;", "STS [R5], R8 ;",        # word t of shared = thread t's input
            "BAR.SYNC 0x0 ;",
            "SHF.L.U32 R4, R9, 0x4, RZ ;",                              # lane's row address = 16 * R9
            f"LDSM.16.{'MT88' if trans else 'M88'}.2 R0, [R4] ;"]
    words = np.arange(64) * 0x00010001 + 0x00030000                    # 64 words: halves 2k, 2k+1
    halves = np.zeros(128, np.int64)
    for k, w in enumerate(words):
        halves[2 * k], halves[2 * k + 1] = int(w) & 0xFFFF, int(w) >> 16
    ins = [[int(words[ln]), perm[ln % 16], 0, 0] for ln in range(32)]
    ins += [[int(words[ln]), 0, 0, 0] for ln in range(32, 64)]
    out = dev.run(body, ins, smem=256)
    for ln in _lanes():
        for q in (0, 1):
            def row(r: int, q: int = q) -> np.ndarray:
                return halves[8 * perm[q * 8 + r]: 8 * perm[q * 8 + r] + 8]
            if trans:
                lo, hi = row(2 * (ln % 4))[ln // 4], row(2 * (ln % 4) + 1)[ln // 4]
            else:
                lo, hi = row(ln // 4)[2 * (ln % 4)], row(ln // 4)[2 * (ln % 4) + 1]
            assert int(out[ln][q]) == int(lo | (hi << 16)), (ln, q)


def test_txq_dimension_components_of_a_texture_and_a_surface(dev):
    """TXQ ... TEX_HEADER_DIMENSION, 0x0, idx, mask: width, height, depth, levels for the mask's
    bits, in order to Rd1, Rd1+1, Rd0, Rd0+1 (as nvcc 13 compiles txq/suq .width/.height: mask
    0x1 / 0x2 into Rd1); the level in Ra (here R8, 0) is level 0, the only one.  A texture's and
    a surface's headers read alike."""
    tex = dev.obj("tex", IMG, F32, T.RES_ARRAY, 2, address_mode=(T.ADDR_CLAMP,) * 3)     # 5 x 4
    surf = _surface(dev, np.zeros((3, 7), np.int32))                                     # 7 x 3
    body = ["TXQ RZ, R0, R8, TEX_HEADER_DIMENSION, 0x0, 0x5c, 0x1 ;",
            "TXQ RZ, R1, R8, TEX_HEADER_DIMENSION, 0x0, 0x5c, 0x2 ;",
            "TXQ R12, R2, R8, TEX_HEADER_DIMENSION, 0x0, 0x5c, 0xf ;",
            "IADD3 R3, R12, R2, RZ ;",                              # depth + width
            "IADD3 R3, R3, R13, RZ ;",                              # + levels
            "IMAD R3, R3, 0x100, R3 ;"]                             # (keep R3 a function of all)
    for h, (w, ht) in ((tex, (5, 4)), (surf, (7, 3))):
        out = dev.run(body, [[0, 0, 0, 0]], h)
        assert [int(v) for v in out[0]] == [w, ht, w, (1 + w + 1) * 0x101]
    # the two-component form: x, y into Rd1, Rd1+1
    out = dev.run(["TXQ RZ, R0, R8, TEX_HEADER_DIMENSION, 0x0, 0x5c, 0x3 ;"], [[0, 0, 0, 0]], tex)
    assert [int(v) for v in out[0]] == [5, 4, 0, 0]


def test_txq_other_queries_are_refused():
    from gpgpusim.ptxplus.convert import convert_kernel as conv
    for line in ("TXQ RZ, R0, R8, TEX_HEADER_TEXTURE_TYPE, 0x0, 0x5c, 0x1 ;",
                 "TXQ RZ, R0, R8, TEX_HEADER_DIMENSION, 0x0, 0x5c, 0x10 ;"):
        with pytest.raises(UnsupportedSass, match="TXQ"):
            conv(sass_function("k", [line, "EXIT ;"]), KernelContext(name="k", params=[ParamSlot("p", 0, 8)],
                                                                    param_decls=[".param .u64 p"]))
