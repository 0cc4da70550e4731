"""gpgpusim.functional.simt: the lanes of a group of warps and the stack moves on the
vectorised path."""

from __future__ import annotations

import numpy as np

from engine_helpers import ptx, run_both
from gpgpusim.functional import simt


class _Ex:
    last_group = None


def test_group_lanes_are_kept_for_the_same_warps_and_masks():
    ex = _Ex()
    G = np.arange(3, 131, dtype=np.int64)
    masks = np.full(G.size, 0xFFFFFFFF, dtype=np.int64)
    masks[::7] = 0x00010001
    first = simt._group_lanes(ex, G, masks)
    np.testing.assert_array_equal(first, simt._lanes_of(G, masks))
    assert not first.flags.writeable
    assert simt._group_lanes(ex, G.copy(), masks.copy()) is first
    other = masks.copy()
    other[5] = 0x3
    changed = simt._group_lanes(ex, G, other)
    assert changed is not first
    np.testing.assert_array_equal(changed, simt._lanes_of(G, other))
    # the same masks for other warps are other lanes
    np.testing.assert_array_equal(simt._group_lanes(ex, G + 1, other), simt._lanes_of(G + 1, other))
    # small groups are not kept
    assert simt._group_lanes(ex, G[:4], masks[:4]) is not simt._group_lanes(ex, G[:4], masks[:4])


# Nested divergence in every warp of 128 (lanes below 5 / from 5; then odd and even lanes),
# each side several instructions long, a loop of lane-dependent length inside: the batched
# driver issues the same group of warps and masks instruction after instruction.
_NESTED = ptx("""
.reg .u32 %r<12>;
.reg .u64 %rd<4>;
.reg .pred %p<4>;
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
mov.u32 %r2, %ctaid.x;
mov.u32 %r3, %ntid.x;
mad.lo.u32 %r4, %r2, %r3, %r1;
and.b32 %r5, %r4, 31;
mov.u32 %r6, 0;
setp.lt.u32 %p1, %r5, 5;
@%p1 bra LOW;
add.u32 %r6, %r6, 100;
mul.lo.u32 %r7, %r5, 3;
add.u32 %r6, %r6, %r7;
and.b32 %r8, %r5, 1;
setp.eq.u32 %p2, %r8, 0;
@%p2 bra EVEN;
add.u32 %r6, %r6, 1000;
mov.u32 %r9, 0;
LOOP:
add.u32 %r6, %r6, 2;
add.u32 %r9, %r9, 1;
setp.lt.u32 %p3, %r9, %r5;
@%p3 bra LOOP;
bra.uni JOIN;
EVEN:
add.u32 %r6, %r6, 10000;
bra.uni JOIN;
LOW:
add.u32 %r6, %r6, 7;
mul.lo.u32 %r10, %r5, %r5;
add.u32 %r6, %r6, %r10;
JOIN:
add.u32 %r6, %r6, %r4;
mul.wide.u32 %rd2, %r4, 4;
add.u64 %rd3, %rd1, %rd2;
st.global.u32 [%rd3], %r6;
ret;
""")


def _expected(n: int) -> np.ndarray:
    out = np.zeros(n, dtype=np.uint32)
    for i in range(n):
        lane = i & 31
        if lane < 5:
            v = 7 + lane * lane
        else:
            v = 100 + 3 * lane
            v += 1000 + 2 * lane if lane & 1 else 10000
        out[i] = v + i
    return out


def test_nested_divergence_over_many_warps():
    n = 128 * 32
    r = run_both(_NESTED, "k", (32, 1, 1), (128, 1, 1), [("out", np.zeros(n, dtype=np.uint32))])
    np.testing.assert_array_equal(r.out["out"], _expected(n))
