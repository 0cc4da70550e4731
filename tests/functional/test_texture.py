"""Texture and surface instructions on texture/surface objects (gpgpusim.functional.texture,
tex_insts): table tests of addressing and filtering against the CUDA programming guide's
"Texture Fetching" formulas, written here independently, one texel at a time."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

from gpgpusim.errors import CudaError
from gpgpusim.functional import texture as T
from gpgpusim.functional.engine import launch
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.ptx import parse_ptx

HDR = ".version 8.0\n.target sm_75\n.address_size 64\n"

TEX2D = HDR + """
.visible .entry k(.param .u64 t, .param .u64 crd, .param .u64 out)
{
    .reg .b32 %r<4>; .reg .f32 %f<8>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [t]; ld.param.u64 %rd2, [crd]; ld.param.u64 %rd3, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 8; add.s64 %rd5, %rd2, %rd4;
    ld.global.v2.f32 {%f1, %f2}, [%rd5];
    tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];
    mul.wide.u32 %rd4, %r1, 16; add.s64 %rd6, %rd3, %rd4;
    st.global.v4.f32 [%rd6], {%f3, %f4, %f5, %f6};
    ret;
}
"""

TEX1D_FETCH = HDR + """
.visible .entry k(.param .u64 t, .param .u64 crd, .param .u64 out)
{
    .reg .b32 %r<8>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [t]; ld.param.u64 %rd2, [crd]; ld.param.u64 %rd3, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 4; add.s64 %rd5, %rd2, %rd4;
    ld.global.s32 %r2, [%rd5];
    tex.1d.v4.s32.s32 {%r3, %r4, %r5, %r6}, [%rd1, {%r2}];
    mul.wide.u32 %rd4, %r1, 16; add.s64 %rd6, %rd3, %rd4;
    st.global.v4.s32 [%rd6], {%r3, %r4, %r5, %r6};
    ret;
}
"""

TLD4 = HDR + """
.visible .entry k(.param .u64 t, .param .u64 crd, .param .u64 out)
{
    .reg .b32 %r<4>; .reg .f32 %f<8>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [t]; ld.param.u64 %rd2, [crd]; ld.param.u64 %rd3, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 8; add.s64 %rd5, %rd2, %rd4;
    ld.global.v2.f32 {%f1, %f2}, [%rd5];
    tld4.r.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];
    mul.wide.u32 %rd4, %r1, 16; add.s64 %rd6, %rd3, %rd4;
    st.global.v4.f32 [%rd6], {%f3, %f4, %f5, %f6};
    ret;
}
"""

QUERY = HDR + """
.visible .entry k(.param .u64 t, .param .u64 s, .param .u64 out)
{
    .reg .b32 %r<8>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [t]; ld.param.u64 %rd2, [s]; ld.param.u64 %rd3, [out];
    txq.width.b32 %r1, [%rd1];
    txq.height.b32 %r2, [%rd1];
    txq.normalized_coords.b32 %r3, [%rd1];
    suq.width.b32 %r4, [%rd2];
    suq.height.b32 %r5, [%rd2];
    st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};
    st.global.u32 [%rd3+16], %r5;
    ret;
}
"""

SURF = HDR + """
.visible .entry k(.param .u64 s, .param .u64 out)
{
    .reg .b32 %r<12>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [s]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y;
    shl.b32 %r3, %r1, 2;
    suld.b.2d.b32.trap {%r4}, [%rd1, {%r3, %r2}];
    add.s32 %r5, %r4, 1000;
    sust.b.2d.b32.trap [%rd1, {%r3, %r2}], {%r5};
    add.s32 %r6, %r3, 4;
    suld.b.2d.b32.zero {%r7}, [%rd1, {%r6, %r2}];
    suld.b.2d.b32.clamp {%r8}, [%rd1, {%r6, %r2}];
    mov.u32 %r9, %ntid.x; mad.lo.u32 %r10, %r2, %r9, %r1;
    mul.wide.u32 %rd3, %r10, 8; add.s64 %rd4, %rd2, %rd3;
    st.global.v2.u32 [%rd4], {%r7, %r8};
    ret;
}
"""

SURF_TRAP = HDR + """
.visible .entry k(.param .u64 s)
{
    .reg .b32 %r<4>; .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [s];
    mov.u32 %r1, 64; mov.u32 %r2, 0;
    suld.b.2d.b32.trap {%r3}, [%rd1, {%r1, %r2}];
    ret;
}
"""


# ----------------------------------------------------------------------------- reference (the guide)
def ref_addr(i: int, n: int, mode: int, normalized: bool):
    """Texel index after the address mode, or None for the border colour."""
    if mode in (T.ADDR_WRAP, T.ADDR_MIRROR) and not normalized:
        mode = T.ADDR_CLAMP
    if mode == T.ADDR_CLAMP:
        return min(max(i, 0), n - 1)
    if mode == T.ADDR_BORDER:
        return i if 0 <= i < n else None
    if mode == T.ADDR_WRAP:
        return i % n
    m = i % (2 * n)
    return m if m < n else 2 * n - 1 - m


def ref_tex2d(img: np.ndarray, x: float, y: float, mode: int, linear: bool, normalized: bool,
              border: float = 0.0) -> float:
    h, w = img.shape
    f32 = np.float32
    x, y = f32(x), f32(y)
    if normalized:
        x, y = f32(x * f32(w)), f32(y * f32(h))

    def texel(i, j):
        a, b = ref_addr(i, w, mode, normalized), ref_addr(j, h, mode, normalized)
        return f32(border) if a is None or b is None else f32(img[b, a])
    if not linear:
        return float(texel(math.floor(x), math.floor(y)))
    xb, yb = f32(x - f32(0.5)), f32(y - f32(0.5))
    i, j = math.floor(xb), math.floor(yb)
    # 9-bit fixed point weights, 8 fractional bits
    a = f32(round(float(f32(xb - f32(i))) * 256) / 256)
    b = f32(round(float(f32(yb - f32(j))) * 256) / 256)
    one = f32(1)
    terms = [f32(f32((one - a) * (one - b)) * texel(i, j)), f32(f32(a * (one - b)) * texel(i + 1, j)),
             f32(f32((one - a) * b) * texel(i, j + 1)), f32(f32(a * b) * texel(i + 1, j + 1))]
    s = terms[0]
    for t in terms[1:]:
        s = f32(s + t)
    return float(s)


# ----------------------------------------------------------------------------- harness
def _run(ptx: str, args: list[int], threads=(32, 1, 1)):
    g = _run.g
    mod = parse_ptx(ptx, "tex.ptx")
    lm = load_module(mod, g)
    launch(lm, "k", (1, 1, 1), threads, 0, struct.pack("<" + "Q" * len(args), *args), gmem=g)


def _alloc(g: GlobalMemory, arr: np.ndarray) -> int:
    a = g.allocate(max(arr.nbytes, 1))
    g.write(a, np.ascontiguousarray(arr).view(np.uint8).ravel())
    return a


@pytest.fixture
def gmem():
    g = GlobalMemory()
    _run.g = g
    yield g
    for h in [h for h, o in T.OBJECTS.items() if o.owner == "test"]:
        del T.OBJECTS[h]


def _img_obj(g, img: np.ndarray, mode: int, linear: bool, normalized: bool, border=0.0) -> int:
    h, w = img.shape
    base = _alloc(g, img.astype(np.float32))
    obj = T.TexObject("tex", T.RES_ARRAY, base, T.ChannelFormat((32, 0, 0, 0), T.KIND_FLOAT), w, h, 1, 2,
                      w * 4, (mode, mode, mode), linear, normalized, False, (border,) * 4, owner="test")
    return T.register(obj)


IMG = np.arange(20, dtype=np.float32).reshape(4, 5) * np.float32(1.5) - 3.0
COORDS_UNNORM = [(0.0, 0.0), (0.5, 0.5), (1.3, 2.7), (4.9, 3.9), (5.2, 1.0), (-0.7, 2.2), (2.5001, 1.4999),
                 (7.8, -3.1), (-6.0, 9.5), (2.0, 2.0), (1.123, 0.877), (3.999, 0.001)]
COORDS_NORM = [(0.0, 0.0), (0.1, 0.125), (0.5, 0.5), (0.95, 0.99), (1.05, 0.3), (-0.1, 0.6), (1.7, -1.2),
               (2.31, 0.77), (-0.5, -0.25), (0.999, 0.001), (0.3333, 0.6667), (3.5, 2.25)]


@pytest.mark.parametrize("mode", [T.ADDR_WRAP, T.ADDR_CLAMP, T.ADDR_MIRROR, T.ADDR_BORDER],
                         ids=["wrap", "clamp", "mirror", "border"])
@pytest.mark.parametrize("linear", [False, True], ids=["point", "linear"])
@pytest.mark.parametrize("normalized", [False, True], ids=["unnorm", "norm"])
def test_tex2d_modes_against_guide(gmem, mode, linear, normalized):
    coords = COORDS_NORM if normalized else COORDS_UNNORM
    crd = np.array(coords, dtype=np.float32)
    h = _img_obj(gmem, IMG, mode, linear, normalized, border=-7.25)
    c = _alloc(gmem, crd)
    out = _alloc(gmem, np.zeros((32, 4), np.float32))
    _run(TEX2D, [h, c, out])
    got = gmem.read(out, 32 * 16).view(np.float32).reshape(32, 4)
    for k, (x, y) in enumerate(coords):
        want = ref_tex2d(IMG, x, y, mode, linear, normalized, border=-7.25)
        assert got[k, 0] == np.float32(want), (k, x, y, got[k, 0], want)
    # lanes past the table read coordinate (0, 0)
    assert got[31, 0] == np.float32(ref_tex2d(IMG, 0.0, 0.0, mode, linear, normalized, -7.25))


def test_missing_channels_default(gmem):
    h = _img_obj(gmem, IMG, T.ADDR_CLAMP, False, False)
    c = _alloc(gmem, np.zeros((32, 2), np.float32) + 1.5)
    out = _alloc(gmem, np.zeros((32, 4), np.float32))
    _run(TEX2D, [h, c, out])
    got = gmem.read(out, 32 * 16).view(np.float32).reshape(32, 4)
    assert list(got[0]) == [IMG[1, 1], 0.0, 0.0, 1.0]


def test_linear_weight_is_9bit_fixed_point(gmem):
    # a texel step of 256 makes the weight visible: frac 0.3 -> round(76.8)/256 = 77/256
    img = np.array([[0.0, 256.0]], np.float32)
    h = _img_obj(gmem, img, T.ADDR_CLAMP, True, False)
    xs = np.array([[0.5 + f, 0.5] for f in (0.3, 0.001, 0.002, 0.998, 0.999, 0.5)] + [[0.5, 0.5]] * 26,
                  np.float32)
    c = _alloc(gmem, xs)
    out = _alloc(gmem, np.zeros((32, 4), np.float32))
    _run(TEX2D, [h, c, out])
    got = gmem.read(out, 32 * 16).view(np.float32).reshape(32, 4)[:6, 0]
    assert list(got) == [77.0, 0.0, 1.0, 255.0, 256.0, 128.0]


def test_quantize_frac_table():
    f = np.array([0.0, 1 / 512, 0.00195, 0.5, 0.99, 0.999, 0.9999], np.float32)
    assert list(T.quantize_frac(f) * 256) == [0, 0, 0, 128, 253, 256, 256]


@pytest.mark.parametrize("n,mode,norm,idx,want", [
    (5, T.ADDR_CLAMP, True, [-3, 0, 4, 9], [0, 0, 4, 4]),
    (5, T.ADDR_WRAP, True, [-1, 5, 11, -6], [4, 0, 1, 4]),
    (5, T.ADDR_MIRROR, True, [-1, 5, 9, 10, -6], [0, 4, 0, 0, 4]),
    (5, T.ADDR_WRAP, False, [-1, 7], [0, 4]),          # wrap/mirror need normalised coordinates
    (5, T.ADDR_MIRROR, False, [-1, 7], [0, 4]),
])
def test_address_table(n, mode, norm, idx, want):
    got, border = T.address(np.array(idx, np.int64), n, mode, norm)
    assert list(got) == want and border is None


def test_address_border_mask():
    got, border = T.address(np.array([-1, 0, 4, 5]), 5, T.ADDR_BORDER, False)
    assert border is not None and list(border) == [True, False, False, True]


def test_tex1dfetch_linear_int4(gmem):
    data = (np.arange(40, dtype=np.int32).reshape(10, 4) * 3 - 50)
    base = _alloc(gmem, data)
    obj = T.TexObject("tex", T.RES_LINEAR, base, T.ChannelFormat((32, 32, 32, 32), T.KIND_SIGNED), 10, 1, 1, 1,
                      160, owner="test")
    h = T.register(obj)
    idx = np.array([0, 3, 9, 10, -1, 5] + [2] * 26, np.int32)
    c = _alloc(gmem, idx)
    out = _alloc(gmem, np.zeros((32, 4), np.int32))
    _run(TEX1D_FETCH, [h, c, out])
    got = gmem.read(out, 32 * 16).view(np.int32).reshape(32, 4)
    for k, i in enumerate(idx):
        want = data[i] if 0 <= i < 10 else np.zeros(4, np.int32)   # out of range reads 0
        assert list(got[k]) == list(want), (k, i)


def test_read_mode_normalized_uchar4(gmem):
    img = np.array([[[0, 255, 128, 1], [10, 20, 30, 40]]], np.uint8)     # 1 x 2 uchar4
    base = _alloc(gmem, img)
    obj = T.TexObject("tex", T.RES_ARRAY, base, T.ChannelFormat((8, 8, 8, 8), T.KIND_UNSIGNED), 2, 1, 1, 2, 8,
                      (T.ADDR_CLAMP,) * 3, False, False, True, owner="test")
    h = T.register(obj)
    c = _alloc(gmem, np.array([[0.5, 0.5]] * 32, np.float32))
    out = _alloc(gmem, np.zeros((32, 4), np.float32))
    _run(TEX2D, [h, c, out])
    got = gmem.read(out, 16).view(np.float32)
    assert list(got) == [np.float32(v) / np.float32(255) for v in (0, 255, 128, 1)]


def test_read_mode_normalized_signed_short(gmem):
    img = np.array([[-32768, -32767, 0, 32767]], np.int16)
    base = _alloc(gmem, img)
    obj = T.TexObject("tex", T.RES_ARRAY, base, T.ChannelFormat((16, 0, 0, 0), T.KIND_SIGNED), 4, 1, 1, 2, 8,
                      (T.ADDR_CLAMP,) * 3, False, False, True, owner="test")
    h = T.register(obj)
    c = _alloc(gmem, np.array([[x + 0.5, 0.5] for x in range(4)] * 8, np.float32))
    out = _alloc(gmem, np.zeros((32, 4), np.float32))
    _run(TEX2D, [h, c, out])
    got = gmem.read(out, 64).view(np.float32).reshape(4, 4)[:, 0]
    assert list(got) == [-1.0, -1.0, 0.0, 1.0]


def test_tld4_gather_order(gmem):
    h = _img_obj(gmem, IMG, T.ADDR_CLAMP, False, False)
    c = _alloc(gmem, np.array([[1.6, 2.4]] * 32, np.float32))
    out = _alloc(gmem, np.zeros((32, 4), np.float32))
    _run(TLD4, [h, c, out])
    got = gmem.read(out, 16).view(np.float32)
    # xB = 1.1, yB = 1.9 -> i = 1, j = 1: (i, j+1), (i+1, j+1), (i+1, j), (i, j)
    assert list(got) == [IMG[2, 1], IMG[2, 2], IMG[1, 2], IMG[1, 1]]


def _surf(g, img: np.ndarray) -> int:
    h, w = img.shape
    base = _alloc(g, img)
    obj = T.TexObject("surf", T.RES_ARRAY, base, T.ChannelFormat((32, 0, 0, 0), T.KIND_SIGNED), w, h, 1, 2,
                      w * 4, owner="test")
    return T.register(obj)


def test_txq_suq(gmem):
    t = _img_obj(gmem, IMG, T.ADDR_CLAMP, False, True)
    s = _surf(gmem, np.zeros((3, 7), np.int32))
    out = _alloc(gmem, np.zeros(8, np.uint32))
    _run(QUERY, [t, s, out], threads=(1, 1, 1))
    assert list(gmem.read(out, 20).view(np.uint32)) == [5, 4, 1, 7, 3]


def test_surface_read_write_modes(gmem):
    img = np.arange(32, dtype=np.int32).reshape(4, 8)
    s = _surf(gmem, img.copy())
    out = _alloc(gmem, np.zeros((4, 8, 2), np.int32))
    _run(SURF, [s, out], threads=(8, 4, 1))
    new = gmem.read(T.OBJECTS[s].base, img.nbytes).view(np.int32).reshape(4, 8)
    assert (new == img + 1000).all()
    got = gmem.read(out, 4 * 8 * 8).view(np.int32).reshape(4, 8, 2)
    # the neighbour to the right: .zero gives 0 past the edge, .clamp the last element; the
    # value is the old or the new one (+1000) depending on the order of lanes: only check bounds
    assert (got[:, 7, 0] == 0).all()
    assert set(got[:, 7, 1] % 1000) == set(img[:, 7])
    assert ((got[:, :7, 0] % 1000) == img[:, 1:]).all()


def test_surface_trap_out_of_bounds(gmem):
    s = _surf(gmem, np.zeros((2, 16), np.int32))
    with pytest.raises(CudaError) as e:
        _run(SURF_TRAP, [s], threads=(1, 1, 1))
    assert "surface" in str(e.value)


def test_unknown_handle_faults(gmem):
    c = _alloc(gmem, np.zeros((32, 2), np.float32))
    out = _alloc(gmem, np.zeros((32, 4), np.float32))
    with pytest.raises(CudaError) as e:
        _run(TEX2D, [123456789, c, out])
    assert "texture object" in str(e.value)


def test_warp_driver_records_tex_accesses(gmem):
    """The warp-step driver sees each texel fetch as a 'tex' access (4 per lane, bilinear)."""
    from gpgpusim.functional import engine

    h = _img_obj(gmem, IMG, T.ADDR_CLAMP, True, False)
    c = _alloc(gmem, np.array(COORDS_UNNORM + [(1.0, 1.0)] * 20, np.float32))
    out = _alloc(gmem, np.zeros((32, 4), np.float32))
    mod = parse_ptx(TEX2D, "tex.ptx")
    lm = load_module(mod, gmem)
    params = struct.pack("<3Q", h, c, out)
    launch(lm, "k", (1, 1, 1), (32, 1, 1), 0, params, gmem=gmem, driver="warp")
    got_warp = gmem.read(out, 512).view(np.float32).copy()
    launch(lm, "k", (1, 1, 1), (32, 1, 1), 0, params, gmem=gmem)
    assert (gmem.read(out, 512).view(np.float32) == got_warp).all()
    assert engine is not None
