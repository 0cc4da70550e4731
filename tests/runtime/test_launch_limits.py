"""Per-config device figures and launch limits (checklist C132, C133): every shipped config
reports and enforces the limits of the GPU it models, from one place (``DeviceInfo``).

The expected figures are the modelled boards' (CUDA Programming Guide, "Technical
Specifications per Compute Capability"; register allocation as the CUDA Occupancy Calculator
describes it), and ``docs/DEVICES.md`` must show exactly these (``test_devices_doc_matches``).
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from gpgpusim.errors import CudaError, Err
from gpgpusim.options import load_config
from gpgpusim.options.config import configs_dir, shipped_gpus
from gpgpusim.runtime.device import DEVICE_MEMORY_BYTES, DeviceInfo
from gpgpusim.runtime.launch import validate_launch
from gpgpusim.device.limits import arch_limits, block_registers, max_threads_for_registers
from gpgpusim.timing.occupancy import max_cta

DOC = Path(__file__).resolve().parents[2] / "docs" / "DEVICES.md"
G3 = (2**31 - 1, 65535, 65535)

#: config -> (board, cc, SMs, memory GiB, core MHz, memory kHz, bus bits, L2 bytes, threads/block,
#: grid, regs/block, regs/SM, threads/SM, CTA slots, smem/block, smem opt-in, smem/SM)
EXPECTED = {
    "QuadroFX5800": ("Quadro FX 5800", (1, 3), 30, 4, 325000, 800000, 512, 0, 512, (65535, 65535, 1),
                     16384, 16384, 1024, 8, 16384, 16384, 16384),
    "SM2_GTX480": ("GeForce GTX 480", (2, 0), 15, 1.5, 700000, 1848000, 384, 786432, 1024,
                   (65535, 65535, 65535), 32768, 32768, 1536, 8, 49152, 49152, 49152),
    "SM6_TITANX": ("TITAN X (Pascal)", (6, 1), 28, 12, 1417000, 5000000, 384, 3 << 20, 1024, G3,
                   65536, 65536, 2048, 32, 49152, 49152, 98304),
    "SM75_RTX2060": ("GeForce RTX 2060", (7, 5), 30, 6, 1365000, 7001000, 192, 3 << 20, 1024, G3,
                     65536, 65536, 1024, 16, 49152, 65536, 65536),
    "SM7_QV100": ("Quadro GV100", (7, 0), 80, 32, 1132000, 850000, 4096, 6 << 20, 1024, G3,
                  65536, 65536, 2048, 32, 49152, 98304, 98304),
    "SM86_RTX3070": ("GeForce RTX 3070", (8, 6), 46, 8, 1132000, 7001000, 256, 4 << 20, 1024, G3,
                     65536, 65536, 1536, 32, 49152, 101376, 102400),
    "TeslaC2050": ("Tesla C2050", (2, 0), 14, 3, 575000, 1500000, 384, 786432, 1024,
                   (65535, 65535, 65535), 32768, 32768, 1536, 8, 49152, 49152, 49152),
}


def device(gpu: str) -> DeviceInfo:
    return DeviceInfo.from_config(load_config(None, gpu=gpu, env=False), gpu)


def figures(d: DeviceInfo) -> tuple:
    return (d.board, (d.major, d.minor), d.sm_count, d.total_mem_bytes / (1 << 30), d.core_khz, d.dram_khz,
            d.bus_width_bits, d.l2_bytes, d.max_threads_per_block, d.max_grid_dims, d.regs_per_block,
            d.regs_per_sm, d.threads_per_sm, d.ctas_per_sm, d.smem_per_block_default_bytes,
            d.smem_per_block_bytes, d.smem_per_sm_bytes)


def test_every_shipped_config_is_covered():
    assert sorted(EXPECTED) == shipped_gpus()


@pytest.mark.parametrize("gpu", sorted(EXPECTED))
def test_device_figures_are_the_modelled_gpus(gpu, monkeypatch):
    monkeypatch.delenv("GPGPUSIM_DEVICE_MEMORY", raising=False)
    assert figures(device(gpu)) == EXPECTED[gpu]


def test_figures_from_the_config_win_and_per_block_limits_fit_one_sm(monkeypatch):
    monkeypatch.delenv("GPGPUSIM_DEVICE_MEMORY", raising=False)
    d = DeviceInfo.from_config(load_config(None, gpu="SM6_TITANX", env=False, overrides=[
        "-gpgpu_registers_per_block=16384", "-gpgpu_shmem_per_block=16384"]), "SM6_TITANX")
    assert (d.regs_per_block, d.smem_per_block_default_bytes, d.smem_per_block_bytes) == (16384, 16384, 16384)
    assert (d.sources["regs_per_block"], d.sources["smem_per_block_bytes"]) == (
        "gpgpu_registers_per_block", "gpgpu_shmem_per_block")
    # a per-block figure never exceeds what one SM holds
    d = DeviceInfo.from_config(load_config(None, gpu="SM7_QV100", env=False, overrides=[
        "-gpgpu_shader_registers=32768", "-gpgpu_shmem_size=32768", "-gpgpu_shader_core_pipeline=768:32"]))
    assert (d.regs_per_block, d.sources["regs_per_block"]) == (32768, "gpgpu_shader_registers")
    assert (d.smem_per_block_bytes, d.smem_per_block_default_bytes) == (32768, 32768)
    assert (d.max_threads_per_block, d.sources["max_threads_per_block"]) == (768, "gpgpu_shader_core_pipeline")
    # an unset -gpgpu_registers_per_block is the architecture's, not GPGPU-Sim's 8192 default
    assert device("SM2_GTX480").sources["regs_per_block"] == "cc 2.0"


def test_modelled_board_found_by_folder_or_by_capability_and_sm_count(tmp_path, monkeypatch):
    monkeypatch.delenv("GPGPUSIM_DEVICE_MEMORY", raising=False)
    # GPGPU-Sim's tested-cfgs layout: <GPU>/gpgpusim.config, loaded by path
    cfg = load_config(configs_dir() / "TeslaC2050" / "gpgpusim.config", env=False)
    assert DeviceInfo.from_config(cfg).board == "Tesla C2050"
    # a copy elsewhere (GPGPU-Sim's working-directory route): cc 7.5 with 30 SMs is the RTX 2060
    src = configs_dir() / "SM75_RTX2060"
    for f in src.iterdir():
        (tmp_path / f.name).write_text(f.read_text())
    d = DeviceInfo.from_config(load_config(tmp_path / "gpgpusim.config", env=False))
    assert (d.board, d.total_mem_bytes) == ("GeForce RTX 2060", 6 << 30)
    # cc 2.0 is two boards: with a changed SM count the copy models neither
    for f in (configs_dir() / "SM2_GTX480").iterdir():
        (tmp_path / f.name).write_text(f.read_text())
    d = DeviceInfo.from_config(load_config(tmp_path / "gpgpusim.config", env=False, overrides=["-gpgpu_n_clusters=8"]))
    assert (d.board, d.total_mem_bytes) == (None, DEVICE_MEMORY_BYTES)
    monkeypatch.setenv("GPGPUSIM_DEVICE_MEMORY", "0x40000000")
    assert device("SM7_QV100").total_mem_bytes == 1 << 30


def test_register_allocation_per_architecture():
    cc13, cc20, cc61, cc70 = arch_limits(1, 3), arch_limits(2, 0), arch_limits(6, 1), arch_limits(7, 0)
    assert (cc13.cc, cc61.cc) == ((1, 2), (6, 0))            # nearest lower listed capability
    # cc 1.x: warps in pairs, the block rounded to 512 registers
    assert block_registers(cc13, 38, 512) == 19456
    assert block_registers(cc13, 38, 384) == 14848            # 12 warps x 32 x 38 = 14592 -> 14848
    assert block_registers(cc13, 38, 416) == 17408            # 13 warps count as 14
    assert block_registers(cc13, 51, 320) == 16384            # 16320 -> 16384: fits exactly
    # cc 2.x: per warp, units of 64
    assert block_registers(cc20, 50, 640) == 32000
    assert block_registers(cc20, 33, 1024) == 34816           # 1056 -> 1088 per warp
    assert block_registers(cc20, 61, 512) == 31744            # srad_v1's block fits Fermi
    # cc 3.0 on: per warp, units of 256 (128 threads x 50 registers -> 7168)
    assert block_registers(cc61, 50, 128) == 7168
    assert block_registers(cc70, 68, 960) == 69120
    assert max_threads_for_registers(cc13, 38, 16384, 512) == 384
    assert max_threads_for_registers(cc13, 60, 16384, 512) == 256
    assert max_threads_for_registers(cc70, 68, 65536, 1024) == 896
    assert max_threads_for_registers(cc20, 20, 32768, 1024) == 1024


def kernel(regs: int, *, static_smem: int = 0, max_threads: int = 1024, attrs: dict | None = None):
    res = SimpleNamespace(regs=regs, static_smem_bytes=static_smem, max_threads=max_threads)
    return SimpleNamespace(name="_Z4srad", resources=lambda: res, attrs=attrs or {})


def refusal(gpu: str, k, grid=(1, 1, 1), block=(512, 1, 1), shmem: int = 0) -> tuple[Err, str] | None:
    try:
        validate_launch("cudaLaunchKernel", k, device(gpu), grid, block, shmem)
    except CudaError as exc:
        return exc.code, exc.message
    return None


@pytest.mark.parametrize("gpu", ["SM6_TITANX", "SM2_GTX480", "TeslaC2050"])
@pytest.mark.parametrize("regs", [20, 40, 61])
def test_rodinia_blocks_launch_where_the_gpu_holds_them(gpu, regs):
    """bfs (20 registers), hotspot and srad_v1 (61) launch 512-thread blocks."""
    assert refusal(gpu, kernel(regs)) is None


def test_blocks_over_the_modelled_gpus_limits_are_refused():
    # GT200: 16 K registers per block
    assert refusal("QuadroFX5800", kernel(61)) == (
        Err.LaunchOutOfResources, "cudaLaunchKernel _Z4srad: 61 registers x 512 threads need 31232 registers, "
                                  "more than the 16384 of a block")
    assert refusal("QuadroFX5800", kernel(20)) is None
    # Fermi: 32 K; Pascal: 64 K
    assert refusal("SM2_GTX480", kernel(33), block=(1024, 1, 1)) == (
        Err.LaunchOutOfResources, "cudaLaunchKernel _Z4srad: 33 registers x 1024 threads need 34816 registers, "
                                  "more than the 32768 of a block")
    assert refusal("SM6_TITANX", kernel(65), block=(1024, 1, 1)) == (
        Err.LaunchOutOfResources, "cudaLaunchKernel _Z4srad: 65 registers x 1024 threads need 73728 registers, "
                                  "more than the 65536 of a block")
    assert refusal("SM6_TITANX", kernel(64), block=(1024, 1, 1)) is None
    # cc 1.x: 512 threads, 512 x 512 x 64 blocks, 2-D grids, 16 KiB of shared memory
    assert refusal("QuadroFX5800", kernel(10), block=(1024, 1, 1)) == (
        Err.InvalidConfiguration, "cudaLaunchKernel _Z4srad: blockDim.x=1024 exceeds 512")
    assert refusal("QuadroFX5800", kernel(10), block=(32, 32, 1)) == (
        Err.InvalidConfiguration, "cudaLaunchKernel _Z4srad: 1024 threads per block exceed the limit of 512")
    assert refusal("QuadroFX5800", kernel(10), grid=(4, 4, 2)) == (
        Err.InvalidConfiguration, "cudaLaunchKernel _Z4srad: gridDim.z=2 exceeds 1")
    assert refusal("QuadroFX5800", kernel(10, static_smem=4096), shmem=12289) == (
        Err.InvalidValue, "cudaLaunchKernel _Z4srad: 12289 bytes of dynamic shared memory (+4096 static) "
                          "exceed the limit of 12288")
    # cc 2.x grids: 65535 blocks in x; cc 3.0 on: 2^31 - 1
    assert refusal("TeslaC2050", kernel(10), grid=(65536, 1, 1)) == (
        Err.InvalidConfiguration, "cudaLaunchKernel _Z4srad: gridDim.x=65536 exceeds 65535")
    assert refusal("SM6_TITANX", kernel(10), grid=(65536, 1, 1)) is None
    # __launch_bounds__ (.maxntid) over the block: too many resources requested
    assert refusal("SM7_QV100", kernel(10, max_threads=256)) == (
        Err.LaunchOutOfResources, "cudaLaunchKernel _Z4srad: 512 threads per block exceed the kernel's "
                                  ".maxntid of 256")
    # dynamic shared memory: 48 KiB less the static part unless opted in, at most the opt-in limit
    assert refusal("SM86_RTX3070", kernel(10, static_smem=1024), shmem=48 * 1024) == (
        Err.InvalidValue, "cudaLaunchKernel _Z4srad: 49152 bytes of dynamic shared memory (+1024 static) "
                          "exceed the limit of 48128 (cudaFuncSetAttribute can raise it to 100352)")
    assert refusal("SM86_RTX3070", kernel(10, static_smem=1024, attrs={8: 100352}), shmem=100352) is None


def test_registers_per_thread_capped_at_the_architectures():
    """A count from an sm_75 cubin above Fermi's 63 is what ptxas for cc 2.0 would have spilled:
    the block launches with 63 registers per thread."""
    d = device("TeslaC2050")
    assert d.kernel_regs(100) == 63 and device("SM6_TITANX").kernel_regs(100) == 100
    assert d.block_registers(100, 512) == 512 * 64
    assert refusal("TeslaC2050", kernel(100)) is None
    assert d.max_threads_for(100) == 512 and d.max_threads_for(100, 256) == 256


def test_timing_model_gives_a_launchable_cta_a_slot():
    """GPGPU-Sim rounds registers to 4 per thread: 640 threads x 50 registers is 33280 > 32768
    on Fermi, where the GPU itself allocates 32000 and runs the block; -gpgpu_ignore_resources
    _limitation 1 (SM6_TITANX sets it) also gives one slot, as in GPGPU-Sim."""
    fermi = load_config(None, gpu="SM2_GTX480", env=False)
    assert max_cta(fermi, (640, 1, 1), 50, 0, 100)[:3] == (1, "regs", 0)
    assert max_cta(fermi, (640, 1, 1), 48, 0, 100)[:3] == (1, "regs", 1)
    titanx = load_config(None, gpu="SM6_TITANX", env=False)
    assert max_cta(titanx, (1024, 1, 1), 128, 0, 100)[:3] == (1, "regs", 0)
    qv100 = load_config(None, gpu="SM7_QV100", env=False)
    assert max_cta(qv100, (1024, 1, 1), 60, 0, 100)[:3] == (1, "regs", 1)


# --- docs/DEVICES.md ----------------------------------------------------------------------------

def _mib(n: int) -> str:
    return f"{n >> 30} GiB" if n % (1 << 30) == 0 else f"{n >> 20} MiB"


def _kib(n: int) -> str:
    return "0" if n == 0 else f"{n // 1024} KiB" if n % 1024 == 0 else f"{n} B"


def table_rows() -> list[str]:
    """The rows docs/DEVICES.md's device table must have, one per shipped config."""
    rows = []
    for gpu in shipped_gpus():
        d = device(gpu)
        grid = "x".join("2^31-1" if g == 2**31 - 1 else str(g) for g in d.max_grid_dims)
        rows.append(" | ".join([
            f"| {gpu}", str(d.board), f"{d.major}.{d.minor}", str(d.sm_count), _mib(d.total_mem_bytes),
            f"{d.core_khz // 1000}", f"{d.dram_khz / 1000:g}", str(d.bus_width_bits), _kib(d.l2_bytes),
            str(d.max_threads_per_block), grid, str(d.regs_per_block), str(d.regs_per_sm),
            str(d.threads_per_sm), str(d.ctas_per_sm),
            f"{_kib(d.smem_per_block_default_bytes)} / {_kib(d.smem_per_block_bytes)}",
            _kib(d.smem_per_sm_bytes)]) + " |")
    return rows


def test_devices_doc_matches(monkeypatch):
    monkeypatch.delenv("GPGPUSIM_DEVICE_MEMORY", raising=False)
    text = DOC.read_text()
    rows = [ln for ln in text.splitlines() if re.match(r"\| (QuadroFX|SM\d|Tesla)", ln)]
    assert rows == table_rows()
