"""CTAs per core and the adaptive L1D/shared-memory carve-out (GPGPU-Sim 4.x
``shader_core_config::max_cta``; checklist C131-C133, C112).

``max_cta(cfg, block, regs, smem, n_blocks)`` returns ``(ctas, limited_by, printed, l1d_kb,
l1d_assoc)``:

* the limit is the smallest of threads per core / padded CTA size, ``-gpgpu_shmem_size`` /
  static shared memory, ``-gpgpu_shader_registers`` / (padded CTA size x registers rounded up to
  4) and ``-gpgpu_shader_cta``; ``limited_by`` names every limit equal to the result, as the
  ``CTA/core = N, limited by: ...`` line prints them (``printed`` is that N);
* then, as GPGPU-Sim does, the limit is lowered to ``ceil(n_blocks / n_cores)`` when the grid
  cannot fill every core to it;
* with ``-gpgpu_adaptive_cache_config 1`` the shared memory of that many CTAs is rounded up to
  the next ``-gpgpu_shmem_option`` carve-out and the L1D gets the rest of the
  ``-gpgpu_unified_l1d_size`` KB (its associativity scaled from the largest possible, rounded to
  nearest): the ``Reconfigure L1 cache to N KB`` figure.

GPGPU-Sim counts only the kernel's static shared memory (ptxas ``smem``) here, not the dynamic
shared memory of the launch; we follow it for fidelity (documented difference from hardware).

A CTA that passed the launch check always gets at least one slot: where GPGPU-Sim's rounding of
registers to 4 per thread exceeds ``-gpgpu_shader_registers`` although the registers as the GPU
allocates them fit (:func:`gpgpusim.device.limits.block_registers`; e.g. 640 threads x 50
registers on cc 2.0), and, as in GPGPU-Sim, whenever ``-gpgpu_ignore_resources_limitation 1``
is set.  ``printed`` stays the computed 0 then, as GPGPU-Sim's ``CTA/core`` line prints it.
"""

from __future__ import annotations

from typing import Any

from gpgpusim.device.limits import arch_limits, block_registers


def max_cta(cfg: Any, block: tuple[int, int, int], regs: int, smem: int, n_blocks: int
            ) -> tuple[int, str, int, int | None, int | None]:
    g = cfg.get
    warp = cfg.warp_size
    threads = block[0] * block[1] * block[2]
    padded = -(-threads // warp) * warp
    big = 1 << 62
    r_thread = cfg.max_threads_per_core // padded
    r_shmem = int(g("gpgpu_shmem_size")) // smem if smem > 0 else big
    r_regs = int(g("gpgpu_shader_registers")) // (padded * ((regs + 3) & ~3)) if regs > 0 else big
    r_cta = int(g("gpgpu_shader_cta"))
    result = min(r_thread, r_shmem, r_regs, r_cta)
    why = []
    if result == r_thread:
        why.append("threads")
    if result == r_shmem:
        why.append("shmem")
    if result == r_regs:
        why.append("regs")
    if result == r_cta:
        why.append("cta_limit")
    printed = result
    if result < 1 and (bool(g("gpgpu_ignore_resources_limitation")) or (
            min(r_thread, r_shmem, r_cta) > 0
            and block_registers(arch_limits(int(g("gpgpu_compute_capability_major")),
                                            int(g("gpgpu_compute_capability_minor"))),
                                regs, threads, warp) <= int(g("gpgpu_shader_registers")))):
        result = 1
    n_cores = cfg.num_cores
    if n_blocks < result * n_cores:
        result = -(-n_blocks // n_cores)
    l1_kb = l1_assoc = None
    dl1 = g("gpgpu_cache:dl1")
    if bool(g("gpgpu_adaptive_cache_config")) and dl1 is not None and not isinstance(dl1, str):
        total_shmem = smem * result
        unified = int(g("gpgpu_unified_l1d_size")) * 1024
        set_bytes = dl1.nsets * dl1.line_bytes
        max_assoc = unified // set_bytes if set_bytes else dl1.assoc
        for opt_kb in g("gpgpu_shmem_option").values:
            opt = opt_kb * 1024
            if total_shmem <= opt:
                ratio = 1.0 - opt / unified
                import numpy as np
                l1_assoc = int(np.float32(max_assoc) * np.float32(ratio) + np.float32(0.5))
                l1_kb = l1_assoc * set_bytes // 1024
                break
    return max(result, 1 if result else 0), " ".join(why), printed, l1_kb, l1_assoc
