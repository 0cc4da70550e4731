"""GlobalMemory: allocation, scalar and vectorised access, faults (C226, C227)."""

import numpy as np
import pytest

from gpgpusim.errors import CudaError, Err
from gpgpusim.functional.memory import GLOBAL_HEAP_START, GlobalMemory, MemoryFault


def test_allocate_aligned_from_heap_start_and_zeroed():
    g = GlobalMemory()
    a = g.allocate(10)
    b = g.allocate(300)
    c = g.allocate(4, align=4096)
    assert a == GLOBAL_HEAP_START
    assert b == GLOBAL_HEAP_START + 256
    assert c % 4096 == 0 and c >= b + 512
    assert g.read(b, 300).tolist() == [0] * 300
    assert g.used_bytes == 314
    assert g.find(a + 9) == (a, 10)
    assert g.find(a + 10) is None
    assert g.find(GLOBAL_HEAP_START - 1) is None


def test_free_reuses_range_and_rejects_double_free():
    g = GlobalMemory()
    a = g.allocate(1000)
    b = g.allocate(16)
    g.free(a)
    assert g.allocate(512) == a
    with pytest.raises(CudaError) as e:
        g.free(a + 4)
    assert e.value.code == Err.InvalidValue
    g.free(b)
    with pytest.raises(CudaError) as e:
        g.free(b)
    assert e.value.code == Err.InvalidValue
    assert "0xc0000400" in str(e.value)


def test_read_write_view_bounds():
    g = GlobalMemory()
    a = g.allocate(8)
    g.write(a, np.array([1, 2], dtype=np.uint32))
    assert g.read(a, 8).view(np.uint32).tolist() == [1, 2]
    g.view(a + 4, 4)[:] = 7
    assert g.read(a + 4, 4).tolist() == [7, 7, 7, 7]
    with pytest.raises(CudaError) as e:
        g.write(a + 4, b"123456")
    assert e.value.code == Err.InvalidValue and "past the end" in str(e.value)
    with pytest.raises(CudaError):
        g.read(0x1000, 4)


def test_host_ptr_is_backing_memory():
    import ctypes
    g = GlobalMemory()
    a = g.allocate(16)
    ctypes.memmove(g.host_ptr(a + 4), b"\x01\x02\x03\x04", 4)
    assert g.read(a, 8).tolist() == [0, 0, 0, 0, 1, 2, 3, 4]


def test_map_host_uses_host_address_and_is_shared():
    g = GlobalMemory()
    buf = np.zeros(64, dtype=np.uint8)
    d = g.map_host(buf)
    assert d == buf.ctypes.data
    g.write(d + 8, b"\xff")
    assert buf[8] == 255
    assert g.is_host_mapped(d + 3)
    used = g.used_bytes
    g.free(d)
    assert g.used_bytes == used and g.find(d) is None


def test_vector_load_store_fast_and_split_paths():
    g = GlobalMemory()
    a = g.allocate(64)
    b = g.allocate(64)
    g.store(np.arange(16, dtype=np.uint64) * 4 + a, np.arange(16, dtype=np.float32))
    assert g.load(np.array([a + 8, a + 60], dtype=np.uint64), np.float32).tolist() == [2.0, 15.0]
    addrs = np.array([a, b + 4, a + 4, b], dtype=np.uint64)
    g.store(addrs, np.array([10, 20, 30, 40], dtype=np.int32))
    assert g.load(addrs, np.int32).tolist() == [10, 20, 30, 40]
    assert g.read(b, 8).view(np.int32).tolist() == [40, 20]


def test_vector_faults_name_first_bad_lane():
    g = GlobalMemory()
    a = g.allocate(64)
    with pytest.raises(MemoryFault) as e:
        g.load(np.array([a, a + (8 << 20), a + (16 << 20)], dtype=np.uint64), np.uint32)
    assert (e.value.kind, e.value.lane, e.value.address) == ("illegal", 1, a + (8 << 20))
    with pytest.raises(MemoryFault) as e:
        g.load(np.array([a, a + 62], dtype=np.uint64), np.uint32)
    assert (e.value.kind, e.value.lane) == ("misaligned", 1)
    with pytest.raises(MemoryFault) as e:
        g.store(np.array([0x10], dtype=np.uint64), np.array([1], dtype=np.uint8))
    assert e.value.kind == "illegal" and e.value.address == 0x10


def test_allocate_rejects_bad_arguments():
    g = GlobalMemory()
    with pytest.raises(CudaError):
        g.allocate(-1)
    with pytest.raises(CudaError):
        g.allocate(8, align=3)


def test_host_mapped_buffer_not_aligned_to_the_element_size():
    g = GlobalMemory()
    raw = np.zeros(80, dtype=np.uint8)
    buf = raw[3:67]                       # base address 3 bytes past an aligned one
    d = g.map_host(buf)
    first = d + (-d) % 8                  # first 8-aligned device address inside it
    addrs = np.array([first, first + 8, first + 16], dtype=np.uint64)
    g.store(addrs, np.array([7, 8, 9], dtype=np.uint64))
    assert g.load(addrs, np.uint64).tolist() == [7, 8, 9]
    off = first - d
    assert buf[off:off + 24].view(np.uint64).tolist() == [7, 8, 9]
    a4 = np.array([first + 4], dtype=np.uint64)
    assert g.load(a4, np.uint32).tolist() == [0]


# each of 64 threads stores its index into a[tid]; atom and red add into b
_SNAP_PTX = """
.version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 p0, .param .u64 p1)
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<6>;
    ld.param.u64 %rd1, [p0];
    ld.param.u64 %rd2, [p1];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r1;
    atom.global.add.u32 %r2, [%rd2], 1;
    red.global.add.u32 [%rd2+4], 2;
    ret;
}
"""


def test_a_snapshot_copies_what_a_launch_writes_and_puts_it_back():
    """Copy on write: the trial launch's stores and atomics copy the two allocations they
    write, not the third; restoring puts every byte back and closes the snapshot."""
    import struct

    from gpgpusim.functional.engine import launch
    from gpgpusim.functional.loader import load_module
    from gpgpusim.ptx import parse_ptx
    g = GlobalMemory()
    lm = load_module(parse_ptx(_SNAP_PTX, "snap.ptx"), g)
    a, b, c = g.allocate(256), g.allocate(64), g.allocate(64)
    for base, n, fill in ((a, 256, 7), (b, 64, 9), (c, 64, 5)):
        g.write(base, np.full(n, fill, np.uint8))
    before = g.read(a, 256).copy(), g.read(b, 64).copy(), g.read(c, 64).copy()
    snap = g.snapshot()
    assert g.cow is snap
    launch(lm, "k", (1, 1, 1), (64, 1, 1), 0, struct.pack("<QQ", a, b), gmem=g)
    assert g.read(a, 256).view(np.uint32).tolist() == list(range(64))
    assert g.read(b, 8).view(np.uint32).tolist() == [0x09090909 + 64, 0x09090909 + 128]
    assert sorted(snap.bufs) == [a, b] and not snap.gaps
    assert snap.restorable()
    snap.restore()
    assert [x.tolist() for x in (g.read(a, 256), g.read(b, 64), g.read(c, 64))] == [x.tolist() for x in before]
    assert g.cow is None


def test_a_snapshot_copies_each_allocation_a_write_reaches_once():
    g = GlobalMemory()
    a, b, c = g.allocate(64), g.allocate(64), g.allocate(64)
    g.write(c, np.full(64, 3, np.uint8))
    snap = g.snapshot()
    snap.before_write("global", np.array([a + 4, a + 8], dtype=np.uint64))          # one allocation
    assert sorted(snap.bufs) == [a]
    snap.before_write("global", np.array([c + 60, a, c], dtype=np.uint64))          # two, unsorted
    assert sorted(snap.bufs) == [a, c] and snap.bufs[c].tolist() == [3] * 64
    copied = snap.bufs[a]
    g.write(a, np.full(64, 1, np.uint8))
    snap.before_write("global", np.array([a], dtype=np.uint64))                    # copied already
    assert snap.bufs[a] is copied and copied.tolist() == [0] * 64
    gap = (1 << 40) + 128                        # outside every allocation: its page is noted
    snap.before_write("generic", np.array([gap, 1 << 60], dtype=np.uint64))        # and a non-global lane
    assert snap.gaps == {gap >> 21: None} and sorted(snap.bufs) == [a, c]
    snap.before_write("shared", np.array([b], dtype=np.uint64))                    # not global memory
    assert sorted(snap.bufs) == [a, c]
    d = g.allocate(64)
    snap.before_write("global", np.array([d + 8, d + 60], dtype=np.uint64))         # not the snapshot's
    assert sorted(snap.bufs) == [a, c]
    snap.close()


def test_a_snapshot_is_unrestorable_after_its_own_thread_allocates_only():
    import threading
    g = GlobalMemory()
    g.allocate(64)
    snap = g.snapshot()
    t = threading.Thread(target=g.allocate, args=(64,))
    t.start()
    t.join()
    assert snap.restorable()                  # another thread's allocation (a host cudaMalloc)
    p = g.allocate(64)                        # the snapshot's own thread (device-side malloc)
    assert not snap.restorable()
    g.free(p)
    assert snap.restorable()                  # allocated and freed again: nothing left over
    snap.close()
    assert g.cow is None
