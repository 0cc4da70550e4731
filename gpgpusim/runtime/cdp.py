"""CUDA dynamic parallelism, runtime side: the child grids a kernel launched from the device
(:mod:`gpgpusim.functional.cdp`) become kernel launches.

Each child is an ordinary kernel launch of the same module: it gets the next
``kernel_launch_uid``, GPGPU-Sim's launch lines and, in performance mode, its own statistics
block.  A parent grid is complete only once its children are (CUDA 12+; GPGPU-Sim
``kernel_info_t::is_finished``), so a child completes before any later work of the parent's
stream starts, before ``cudaStreamSynchronize``/``cudaDeviceSynchronize`` return and before an
event recorded after the parent completes.

When the children start:

* **Performance mode** models it as GPGPU-Sim 4.x does: a launch call issues after serving its
  ``-cdp_latency`` (``timing/core/shader.py``), and its children start then, beside their
  parent (``KernelRun.device_launch`` releases them; the stream manager's
  ``_start_child`` queues each on a device stream: one per launching CTA for the default
  stream, as GPGPU-Sim's per-CTA streams, so one CTA's children run in launch order; a new one
  per ``cudaStreamFireAndForget`` launch).  They then take SMs as any concurrent kernel does.
  ``cudaStreamTailLaunch`` children run after the parent grid, on its stream.
* **Functional mode** has no time: children run after the parent grid has finished, on the
  parent's stream and before anything queued after the parent there, in launch order, each
  child's own children right after it (the stream manager's ``_queue_children``).  So do the
  children of CTAs that performance mode did not time (CTA or kernel sampling).

Device-side stream creation (``__cudaCDP2StreamCreateWithFlags``) is not implemented
(``cudaErrorNotSupported`` naming the call), and CDP runs whatever ``-gpgpu_cdp_enabled`` says
(GPGPU-Sim only uses it to link its own device runtime).
"""

from __future__ import annotations

from typing import Any

from gpgpusim.device.gpu import KernelLaunchOp
from gpgpusim.functional.cdp import STREAM_FIRE_AND_FORGET
from gpgpusim.functional.engine import get_program


def child_launch(parent: KernelLaunchOp, dl: Any, gmem: Any) -> KernelLaunchOp:
    """The kernel launch of child grid ``dl`` (``functional.cdp.DeviceLaunch``) of
    ``parent``; its parameter buffer is read and freed."""
    n = int(get_program(parent.module, dl.kernel).kernel.param_bytes)
    params = gmem.read(dl.buffer, n).tobytes() if n else b""
    gmem.free(dl.buffer)
    kwargs = dict(parent.launch_kwargs)
    if isinstance(kwargs.get("line_stats"), dict):
        kwargs["line_stats"] = {}        # the engine fills it per launch
    return KernelLaunchOp(parent.module, dl.kernel, dl.grid, dl.block, dl.smem, params, kwargs)


def child_launches(parent: KernelLaunchOp, stats: Any, gmem: Any) -> list[KernelLaunchOp]:
    """The kernel launches of the child grids ``parent`` launched (``stats.device_launches``)
    that did not start while it ran, in launch order."""
    return [child_launch(parent, dl, gmem) for dl in getattr(stats, "device_launches", None) or ()
            if not dl.released]


def device_stream_key(dl: Any) -> Any:
    """Which device stream of its parent child grid ``dl`` runs on: its launching CTA's (the
    default stream; any other handle too, since device code cannot create streams here), or
    None for a fresh stream (``cudaStreamFireAndForget``)."""
    return None if dl.stream == STREAM_FIRE_AND_FORGET else ("cta", dl.cta)
