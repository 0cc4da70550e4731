"""gpgpusim.functional.state: an Exec's lane and warp indices (LaneShape)."""

from __future__ import annotations

import numpy as np
import pytest

from gpgpusim.functional.engine import get_program
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.functional.state import Exec, LaneShape, lane_shape
from gpgpusim.ptx import parse_ptx

_PTX = """
.version 8.0
.target sm_70
.address_size 64
.visible .entry k() {
ret;
}
"""


def _exec(block: tuple[int, int, int], ctas: list[int], smem: int = 0) -> Exec:
    g = GlobalMemory()
    lm = load_module(parse_ptx(_PTX, "k.ptx"), g)
    return Exec(get_program(lm, "k"), lm, g, (8, 1, 1), block, smem, b"", ctas)


def test_a_partial_last_warp_in_the_shape_of_two_ctas():
    s = LaneShape(2, 2, 48, 32)          # 2 CTAs of 48 threads: warps of 32 and 16 threads
    assert s.lane_cta.tolist() == [0] * 64 + [1] * 64
    assert s.lane_t.tolist() == list(range(64)) * 2
    assert s.warp_cta.tolist() == [0, 0, 1, 1]
    assert s.init_masks.tolist() == [0xFFFFFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFF]
    assert s.valid_lanes.tolist() == list(range(48)) + list(range(64, 112))
    assert s.exited.tolist() == ([False] * 48 + [True] * 16) * 2
    assert s.lane_smem_base.tolist() == [0] * 64 + [32] * 64
    assert s.lane_smem_base32 is not None and s.lane_smem_base32.dtype == np.int32


def test_execs_of_one_shape_share_its_arrays_read_only():
    a, b = _exec((48, 1, 1), [0, 1]), _exec((48, 1, 1), [2, 3])     # other CTAs, same shape
    shape = lane_shape(2, 2, 48, a.smem_stride)
    for name in ("all_lanes", "lane_cta", "lane_t", "warp_ids", "warp_cta", "valid_lanes",
                 "init_masks", "lane_smem_base"):
        assert getattr(a, name) is getattr(b, name) is getattr(shape, name), name
        with pytest.raises(ValueError, match="read-only"):
            getattr(a, name)[0] = 1
    # what an Exec changes is its own: the exited lanes and the SIMT stack
    assert a.exited is not b.exited and a.exited.flags.writeable
    a.exited[:] = True
    assert not b.exited[0] and not shape.exited[0]
    assert a.smask[:, 0].tolist() == [0xFFFFFFFF, 0xFFFF] * 2
    c = _exec((48, 1, 1), [0, 1], smem=100)          # another shared-memory stride: another shape
    assert c.smem_stride != a.smem_stride and c.lane_smem_base is not a.lane_smem_base
    assert c.lane_cta.tolist() == a.lane_cta.tolist() and c.lane_smem_base.tolist()[64] == c.smem_stride


def test_shape_specials_are_shared_and_ctaid_follows_the_chunks_ctas():
    a, b = _exec((8, 2, 1), [0, 1]), _exec((8, 2, 1), [0, 1])        # 2 CTAs of 8x2 threads
    tx, ty = a.special("%tid", "x"), a.special("%tid", "y")
    assert tx[:16].tolist() == list(range(8)) * 2 and ty[:16].tolist() == [0] * 8 + [1] * 8
    assert b.special("%tid", "x") is tx and not tx.flags.writeable
    ctaid = a.special("%ctaid", "x")
    assert ctaid[::32].tolist() == [0, 1] and b.special("%ctaid", "x") is ctaid
    c = _exec((8, 2, 1), [5, 6])                                     # other CTAs: their own ids
    assert c.special("%ctaid", "x")[::32].tolist() == [5, 6] and c.special("%tid", "x") is tx
    d = _exec((8, 2, 1), [6, 5])                                     # not consecutive: not shared
    assert d.special("%ctaid", "x")[::32].tolist() == [6, 5]
    assert d.special("%ctaid", "x") is not c.special("%ctaid", "x")
    assert a.special("%nctaid", "x").tolist() == [8] * 64            # the grid's 8 CTAs
    assert a.special("%gridid", None) is not b.special("%gridid", None)   # per launch, not shared


def test_few_shapes_are_kept_and_each_keeps_few_specials():
    from gpgpusim.functional import state
    first = lane_shape(3, 1, 32, 16)
    for n in range(4, 4 + state._SHAPES_KEPT):
        lane_shape(n, 1, 32, 16)
    assert len(state._LANE_SHAPES) == state._SHAPES_KEPT
    assert lane_shape(3, 1, 32, 16) is not first                     # the least recent was dropped
    assert lane_shape(3, 1, 32, 16) is lane_shape(3, 1, 32, 16)      # used again: kept
    ex = _exec((32, 1, 1), [0])
    for c0 in range(2 * state._SPECIALS_PER_SHAPE):                  # a %ctaid per chunk position
        ex.cta_ids = np.array([c0])
        ex._special.clear()
        assert ex.special("%ctaid", "x")[0] == c0 % 8                # the grid is 8 CTAs wide
    assert len(ex.shape.specials) == state._SPECIALS_PER_SHAPE
