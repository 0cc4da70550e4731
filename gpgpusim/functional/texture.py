"""Texture and surface objects: the sampler arithmetic of ``tex``/``tld4``/``txq`` and the
addressing of ``suld``/``sust``/``suq``.

GPGPU-Sim counterpart: ``cuda-sim/instructions.cc`` (``tex_impl``, ``suld_impl``, ``sust_impl``,
``txq_impl``) and the texture-reference bookkeeping of ``gpgpu_t``; GPGPU-Sim only models
texture *references* (gone from CUDA 12+) and no linear filtering, so here the reference is the
CUDA programming guide's appendix "Texture Fetching":

* Nearest point: ``tex(x) = T[i]``, ``i = floor(x)``.
* Linear: ``tex(x) = (1-a) T[i] + a T[i+1]``, ``xB = x - 0.5``, ``i = floor(xB)``,
  ``a = frac(xB)`` held in 9-bit fixed point with 8 fractional bits (so ``a`` is a multiple of
  1/256 and 1.0 is representable: the fraction is *rounded* to the nearest 1/256; truncation could
  never give 1.0); 2D/3D are the products of the per-axis weights
  (``(1-a)(1-b) T[i,j] + a(1-b) T[i+1,j] + (1-a)b T[i,j+1] + ab T[i+1,j+1]``), summed in float32
  in that order.
* Normalised coordinates are scaled by the size (``x * N``, float32) first.
* Address modes apply to each texel index: clamp (``[0, N-1]``), wrap (``i mod N``), mirror
  (``i mod 2N`` reflected), border (out of range -> the border colour).  Wrap and mirror are
  defined for normalised coordinates only; with unnormalised ones they act as clamp.
* Linear resources (``tex1Dfetch``) take integer texel indices, no filtering and no address
  modes: an index out of range reads 0.
* Read mode normalised float maps 8/16-bit integers to ``[0, 1]`` (unsigned, ``v / (2^n - 1)``)
  or ``[-1, 1]`` (signed, ``max(v / (2^(n-1) - 1), -1)``); 16-bit floats are widened.
* Components the format lacks read as 0, the fourth (alpha) as 1 (the graphics convention the
  texture unit follows).

Objects live in a process-wide table (:data:`OBJECTS`) keyed by the 64-bit handle the runtime
returns (``cudaCreateTextureObject``/``cudaCreateSurfaceObject``); kernels receive the handle as
a ``.u64`` parameter and the engine looks it up when ``tex``/``suld``... execute.  The texels
themselves are ordinary device memory (a CUDA array is a row-major allocation, ``pitch`` bytes per
row, ``height`` rows per slice), so the trace recorder sees texel fetches as ``tex``-space accesses
to their device addresses and surface accesses as ``global`` ones.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpgpusim.errors import CudaError, Err

# cudaChannelFormatKind
KIND_SIGNED, KIND_UNSIGNED, KIND_FLOAT = 0, 1, 2
# cudaTextureAddressMode
ADDR_WRAP, ADDR_CLAMP, ADDR_MIRROR, ADDR_BORDER = 0, 1, 2, 3
# cudaResourceType
RES_ARRAY, RES_MIPMAP, RES_LINEAR, RES_PITCH2D = 0, 1, 2, 3

_FIX_ONE = np.float32(256.0)


@dataclass(frozen=True, slots=True)
class ChannelFormat:
    """``cudaChannelFormatDesc``: bits per channel (x, y, z, w) and the kind."""

    bits: tuple[int, int, int, int]
    kind: int

    @property
    def nchan(self) -> int:
        return sum(1 for b in self.bits if b)

    @property
    def chan_bytes(self) -> int:
        return self.bits[0] // 8

    @property
    def elem_bytes(self) -> int:
        return sum(self.bits) // 8

    def validate(self, what: str) -> None:
        b = self.bits
        n = self.nchan
        ok = (self.kind in (KIND_SIGNED, KIND_UNSIGNED, KIND_FLOAT) and n in (1, 2, 4)
              and all(x == b[0] for x in b[:n]) and all(x == 0 for x in b[n:])
              and (b[0] in (8, 16, 32) if self.kind != KIND_FLOAT else b[0] in (16, 32)))
        if not ok:
            raise CudaError(Err.InvalidValue, f"{what}: channel format {b} kind {self.kind} is not a "
                                              f"format CUDA arrays support (1, 2 or 4 equal channels)")

    def dtype(self) -> np.dtype:
        w = self.chan_bytes
        if self.kind == KIND_FLOAT:
            return np.dtype(np.float16 if w == 2 else np.float32)
        return np.dtype({1: "i1", 2: "i2", 4: "i4"}[w] if self.kind == KIND_SIGNED else {1: "u1", 2: "u2", 4: "u4"}[w])


@dataclass(slots=True)
class TexObject:
    """One texture or surface object as the engine needs it."""

    kind: str                       # 'tex' | 'surf'
    res_type: int                   # RES_ARRAY | RES_LINEAR | RES_PITCH2D
    base: int                       # device address of texel (0, 0, 0)
    fmt: ChannelFormat
    width: int                      # in elements
    height: int = 1
    depth: int = 1
    dims: int = 1                   # 1, 2 or 3 (of the resource)
    pitch: int = 0                  # bytes between rows
    address_mode: tuple[int, int, int] = (ADDR_WRAP, ADDR_WRAP, ADDR_WRAP)
    linear_filter: bool = False
    normalized_coords: bool = False
    read_normalized: bool = False
    border: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    res_desc: bytes = b""           # the cudaResourceDesc as given (cudaGet*ObjectResourceDesc)
    tex_desc: bytes = b""           # the cudaTextureDesc as given
    owner: Any = field(default=None, repr=False)   # the runtime's CudaArray, when any

    @property
    def slice_pitch(self) -> int:
        return self.pitch * self.height

    @property
    def nbytes(self) -> int:
        return self.pitch * self.height * self.depth


# ----------------------------------------------------------------------------- registry
OBJECTS: dict[int, TexObject] = {}
_next = itertools.count(1)
_lock = threading.Lock()


def register(obj: TexObject) -> int:
    with _lock:
        h = next(_next)
        OBJECTS[h] = obj
    return h


def unregister(handle: int, kind: str) -> TexObject:
    with _lock:
        obj = OBJECTS.get(handle)
        if obj is None or obj.kind != kind:
            raise CudaError(Err.InvalidValue, f"{handle:#x} is not a live {'texture' if kind == 'tex' else 'surface'} object")
        del OBJECTS[handle]
    return obj


def lookup(handle: int, kind: str, where: str = "") -> TexObject:
    """The live object ``handle`` of ``kind`` ("tex", "surf", or "any": either)."""
    obj = OBJECTS.get(handle)
    if obj is None or obj.kind != kind and kind != "any":
        what = {"tex": "texture", "surf": "surface"}.get(kind, "texture or surface")
        raise CudaError(Err.IllegalAddress, f"{where}: {handle:#x} is not a live {what} object", sticky=True)
    return obj


# ----------------------------------------------------------------------------- texel access
def _mem_view(gmem: Any, obj: TexObject) -> np.ndarray:
    return gmem.view(obj.base, obj.nbytes)          # writable uint8 view of the backing bytes


def _read_channels(gmem: Any, obj: TexObject, byte_off: np.ndarray) -> list[np.ndarray]:
    """Raw channel values (the format's dtype) of the texels at ``byte_off`` (int64)."""
    fmt = obj.fmt
    cb = fmt.chan_bytes
    typed = _mem_view(gmem, obj).view(fmt.dtype())
    idx = byte_off // cb
    return [typed[idx + c] for c in range(fmt.nchan)]


def _to_values(obj: TexObject, chans: list[np.ndarray], as_float: bool) -> list[np.ndarray]:
    """Channel values as float32 (filtering, float results) or int64 (element-type integers),
    with the read mode applied; missing channels become 0 (x, y, z) and 1 (w)."""
    fmt = obj.fmt
    n = chans[0].size if chans else 0
    out: list[np.ndarray] = []
    for c in range(4):
        if c < len(chans):
            v = chans[c]
            if fmt.kind == KIND_FLOAT:
                out.append(v.astype(np.float32))
            elif obj.read_normalized and fmt.chan_bytes < 4:
                bits = fmt.bits[c]
                if fmt.kind == KIND_UNSIGNED:
                    out.append((v.astype(np.float32) / np.float32((1 << bits) - 1)).astype(np.float32))
                else:
                    f = v.astype(np.float32) / np.float32((1 << (bits - 1)) - 1)
                    out.append(np.maximum(f, np.float32(-1.0)).astype(np.float32))
            elif as_float:
                out.append(v.astype(np.float32))
            else:
                out.append(v.astype(np.int64))
        else:
            one = 1 if c == 3 else 0
            out.append(np.full(n, one, dtype=np.float32 if (as_float or fmt.kind == KIND_FLOAT
                                                             or obj.read_normalized) else np.int64))
    return out


def returns_float(obj: TexObject) -> bool:
    return obj.fmt.kind == KIND_FLOAT or (obj.read_normalized and obj.fmt.chan_bytes < 4)


def address(idx: np.ndarray, n: int, mode: int, normalized: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """Texel index after the address mode: ``(index in [0, n), border mask or None)``."""
    if mode in (ADDR_WRAP, ADDR_MIRROR) and not normalized:
        mode = ADDR_CLAMP
    if mode == ADDR_WRAP:
        return np.mod(idx, n), None
    if mode == ADDR_MIRROR:
        m = np.mod(idx, 2 * n)
        return np.where(m < n, m, 2 * n - 1 - m), None
    if mode == ADDR_BORDER:
        out = (idx < 0) | (idx >= n)
        return np.clip(idx, 0, n - 1), (out if out.any() else None)
    return np.clip(idx, 0, n - 1), None


def quantize_frac(f: np.ndarray) -> np.ndarray:
    """The 9-bit fixed-point weight (8 fractional bits) of a fraction in [0, 1)."""
    return (np.rint(f.astype(np.float32) * _FIX_ONE) / _FIX_ONE).astype(np.float32)


def _float_coord(x: np.ndarray, n: int, normalized: bool) -> np.ndarray:
    x = np.nan_to_num(np.asarray(x, dtype=np.float32), nan=0.0, posinf=1e9, neginf=-1e9)
    if normalized:
        x = (x * np.float32(n)).astype(np.float32)
    return np.clip(x, np.float32(-1e9), np.float32(1e9))


@dataclass(slots=True)
class Fetch:
    """Result of a texture fetch: 4 component arrays and the texel byte addresses touched."""

    comps: list[np.ndarray]
    addrs: list[np.ndarray]


def _sizes(obj: TexObject) -> tuple[int, int, int]:
    return obj.width, obj.height, obj.depth


def _texel_offsets(obj: TexObject, ix: list[np.ndarray]) -> np.ndarray:
    off = ix[0].astype(np.int64) * obj.fmt.elem_bytes
    if len(ix) > 1:
        off = off + ix[1].astype(np.int64) * obj.pitch
    if len(ix) > 2:
        off = off + ix[2].astype(np.int64) * obj.slice_pitch
    return off


def _gather(gmem: Any, obj: TexObject, ix: list[np.ndarray], border: np.ndarray | None,
            as_float: bool, addrs: list[np.ndarray]) -> list[np.ndarray]:
    off = _texel_offsets(obj, ix)
    addrs.append(off + obj.base)
    vals = _to_values(obj, _read_channels(gmem, obj, off), as_float)
    if border is not None:
        for c in range(4):
            bc = obj.border[c]
            vals[c] = np.where(border, vals[c].dtype.type(bc), vals[c])
    return vals


def fetch(gmem: Any, obj: TexObject, coords: list[np.ndarray], int_coords: bool) -> Fetch:
    """``tex`` on ``obj`` at per-lane ``coords`` (one array per dimension used)."""
    ndim = len(coords)
    sizes = _sizes(obj)
    addrs: list[np.ndarray] = []
    if obj.res_type == RES_LINEAR:
        # tex1Dfetch: integer index, no filtering or address modes, out of range reads 0
        x = coords[0].astype(np.int64) if int_coords else np.floor(_float_coord(coords[0], 1, False)).astype(np.int64)
        out = (x < 0) | (x >= obj.width)
        xi = np.clip(x, 0, max(obj.width - 1, 0))
        off = _texel_offsets(obj, [xi])
        addrs.append(off + obj.base)
        vals = _to_values(obj, _read_channels(gmem, obj, off), returns_float(obj))
        if out.any():
            vals = [np.where(out, v.dtype.type(0), v) for v in vals]
        return Fetch(vals, addrs)
    as_float = returns_float(obj)
    if int_coords or not obj.linear_filter:
        ix, borders = [], []
        for d in range(ndim):
            if int_coords:
                i = coords[d].astype(np.int64)
            else:
                i = np.floor(_float_coord(coords[d], sizes[d], obj.normalized_coords)).astype(np.int64)
            a, b = address(i, sizes[d], obj.address_mode[d], obj.normalized_coords and not int_coords)
            ix.append(a)
            borders.append(b)
        bmask = _any_mask(borders)
        return Fetch(_gather(gmem, obj, ix, bmask, as_float, addrs), addrs)
    if not as_float:
        raise CudaError(Err.InvalidValue, "linear filtering of an integer texture read as element type",
                        sticky=True)
    # linear filtering: per-axis lower/upper texel and 9-bit weight
    lo, hi, w = [], [], []
    for d in range(ndim):
        xb = (_float_coord(coords[d], sizes[d], obj.normalized_coords) - np.float32(0.5)).astype(np.float32)
        fl = np.floor(xb)
        i = fl.astype(np.int64)
        w.append(quantize_frac((xb - fl).astype(np.float32)))
        lo.append(address(i, sizes[d], obj.address_mode[d], obj.normalized_coords))
        hi.append(address(i + 1, sizes[d], obj.address_mode[d], obj.normalized_coords))
    acc: list[np.ndarray] | None = None
    one = np.float32(1.0)
    for corner in itertools.product((0, 1), repeat=ndim):
        # corner order: x fastest (T[i,j], T[i+1,j], T[i,j+1], T[i+1,j+1]) as the guide writes it
        corner = corner[::-1]
        ix, borders = [], []
        weight: np.ndarray | None = None
        for d in range(ndim):
            a, b = (hi if corner[d] else lo)[d]
            ix.append(a)
            borders.append(b)
            wd = w[d] if corner[d] else (one - w[d]).astype(np.float32)
            weight = wd if weight is None else (weight * wd).astype(np.float32)
        vals = _gather(gmem, obj, ix, _any_mask(borders), True, addrs)
        assert weight is not None
        term = [(weight * v).astype(np.float32) for v in vals]
        acc = term if acc is None else [(s + t).astype(np.float32) for s, t in zip(acc, term, strict=True)]
    assert acc is not None
    return Fetch(acc, addrs)


def gather4(gmem: Any, obj: TexObject, coords: list[np.ndarray], comp: int) -> Fetch:
    """``tld4.{r,g,b,a}.2d``: component ``comp`` of the four texels bilinear filtering would use,
    in the order (i, j+1), (i+1, j+1), (i+1, j), (i, j)."""
    sizes = _sizes(obj)
    lo, hi = [], []
    for d in range(2):
        xb = (_float_coord(coords[d], sizes[d], obj.normalized_coords) - np.float32(0.5)).astype(np.float32)
        i = np.floor(xb).astype(np.int64)
        lo.append(address(i, sizes[d], obj.address_mode[d], obj.normalized_coords))
        hi.append(address(i + 1, sizes[d], obj.address_mode[d], obj.normalized_coords))
    addrs: list[np.ndarray] = []
    out = []
    as_float = returns_float(obj)
    for cx, cy in ((lo[0], hi[1]), (hi[0], hi[1]), (hi[0], lo[1]), (lo[0], lo[1])):
        vals = _gather(gmem, obj, [cx[0], cy[0]], _any_mask([cx[1], cy[1]]), as_float, addrs)
        out.append(vals[comp])
    return Fetch(out, addrs)


def _any_mask(masks: list[np.ndarray | None]) -> np.ndarray | None:
    out = None
    for m in masks:
        if m is not None:
            out = m if out is None else (out | m)
    return out


# ----------------------------------------------------------------------------- queries
TXQ_FIELDS = ("width", "height", "depth", "channel_data_type", "channel_order", "normalized_coords",
              "filter_mode", "addr_mode_0", "addr_mode_1", "addr_mode_2", "array_size",
              "num_mipmap_levels", "num_samples", "force_unnormalized_coords")


def query(obj: TexObject, what: str) -> int:
    """``txq``/``suq`` fields (sizes in elements)."""
    if what == "width":
        return obj.width
    if what == "height":
        return obj.height
    if what == "depth":
        return obj.depth
    if what == "normalized_coords":
        return int(obj.normalized_coords)
    if what == "filter_mode":
        return int(obj.linear_filter)
    if what.startswith("addr_mode_"):
        return obj.address_mode[int(what[-1])]
    if what == "num_mipmap_levels":
        return 1
    if what in ("array_size", "num_samples", "force_unnormalized_coords"):
        return 0
    if what == "channel_data_type":
        return obj.fmt.kind
    if what == "channel_order":
        return obj.fmt.nchan
    raise CudaError(Err.NotSupported, f"txq/suq .{what} is not supported")


# ----------------------------------------------------------------------------- surfaces
def surface_offsets(obj: TexObject, x_bytes: np.ndarray, rest: list[np.ndarray], size: int,
                    mode: str) -> tuple[np.ndarray, np.ndarray | None]:
    """Byte offsets into the surface for ``suld.b``/``sust.b`` (x in bytes, y/z in rows/slices)
    and the mask of lanes out of range (``.zero``; ``.clamp`` moves them to the nearest element;
    ``.trap`` reports the first as an error)."""
    row_bytes = obj.width * obj.fmt.elem_bytes
    x = x_bytes.astype(np.int64)
    dims = [(x, row_bytes - size + 1)] + [(r.astype(np.int64), n) for r, n in zip(rest, (obj.height, obj.depth)[:len(rest)], strict=True)]
    bad = np.zeros(x.shape, dtype=bool)
    for v, lim in dims:
        bad |= (v < 0) | (v >= lim)
    if bad.any():
        if mode == "trap":
            i = int(np.flatnonzero(bad)[0])
            raise CudaError(Err.IllegalAddress,
                            f"surface access out of bounds at x={int(x[i])} bytes"
                            + "".join(f", {'yz'[k]}={int(r[i])}" for k, r in enumerate(rest))
                            + f" (surface {obj.width}x{obj.height}x{obj.depth} elements of "
                              f"{obj.fmt.elem_bytes} bytes)", sticky=True)
        if mode == "clamp":
            x = np.clip(x, 0, max(row_bytes - size, 0))
            x = x - (x % size)
            rest = [np.clip(r.astype(np.int64), 0, n - 1) for r, n in zip(rest, (obj.height, obj.depth)[:len(rest)], strict=True)]
            bad_out: np.ndarray | None = None
        else:
            x = np.where(bad, 0, x)
            rest = [np.where(bad, 0, r.astype(np.int64)) for r in rest]
            bad_out = bad
    else:
        bad_out = None
    off = x
    if rest:
        off = off + rest[0].astype(np.int64) * obj.pitch
    if len(rest) > 1:
        off = off + rest[1].astype(np.int64) * obj.slice_pitch
    return off, bad_out


def surface_bytes(gmem: Any, obj: TexObject) -> np.ndarray:
    return _mem_view(gmem, obj)
