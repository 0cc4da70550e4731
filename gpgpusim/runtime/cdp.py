"""CUDA dynamic parallelism, runtime side: the child grids a kernel launched from the device
(:mod:`gpgpusim.functional.cdp`) become kernel launches on the parent's stream.

When a kernel finishes, the stream manager (:meth:`StreamManager._sim_loop`) asks
:func:`child_launches` for its children and puts them on the parent's stream right after it, in
launch order, ahead of anything the host queued after the parent; so a child (and, the same way,
its own children) completes before any later work of that stream starts, before
``cudaStreamSynchronize``/``cudaDeviceSynchronize`` return and before an event recorded after
the parent completes.  Each child is an ordinary kernel launch of the same module: it gets the
next ``kernel_launch_uid``, GPGPU-Sim's launch lines and, in performance mode, its own
statistics block (its cycles follow the parent's).

How this differs from GPGPU-Sim 4.x, whose device runtime serves the CUDA 5-11 calls
(``cudaGetParameterBufferV2``, ``cudaLaunchDeviceV2``, device-side ``cudaStreamCreateWithFlags``)
with ``-gpgpu_cdp_enabled`` and charges them the latencies of ``-cdp_latency`` (stream creation,
parameter buffer and launch, per warp and per kernel): a child grid may start there while its
parent still runs.  Here the children start once the whole parent grid has finished (a schedule
CUDA 12+ allows: device-side synchronisation no longer exists, so no correct program depends on
a child running earlier); device-side stream creation is not implemented
(``cudaErrorNotSupported`` naming the call); ``-cdp_latency`` is accepted and not modelled, and
CDP is on whatever ``-gpgpu_cdp_enabled`` says.
"""

from __future__ import annotations

from typing import Any

from gpgpusim.device.gpu import KernelLaunchOp


def child_launches(parent: KernelLaunchOp, stats: Any, gmem: Any) -> list[KernelLaunchOp]:
    """The kernel launches of the child grids ``parent`` launched (``stats.device_launches``),
    in launch order; their parameter buffers are read and freed."""
    out = []
    for dl in getattr(stats, "device_launches", None) or ():
        from gpgpusim.functional.engine import get_program
        n = int(get_program(parent.module, dl.kernel).kernel.param_bytes)
        params = gmem.read(dl.buffer, n).tobytes() if n else b""
        gmem.free(dl.buffer)
        kwargs = dict(parent.launch_kwargs)
        if isinstance(kwargs.get("line_stats"), dict):
            kwargs["line_stats"] = {}        # the engine fills it per launch
        out.append(KernelLaunchOp(parent.module, dl.kernel, dl.grid, dl.block, dl.smem, params, kwargs))
    return out
