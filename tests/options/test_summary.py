"""``gpgpusim configs`` and the seed-derived GT200/Fermi models."""

from __future__ import annotations

from gpgpusim.options import load_config, main_configs, shipped_gpus
from gpgpusim.options.summary import summarize


def test_shipped_set():
    assert shipped_gpus() == ["QuadroFX5800", "SM2_GTX480", "SM6_TITANX", "SM75_RTX2060", "SM7_QV100",
                              "SM86_RTX3070", "TeslaC2050"]


def test_summary_figures():
    q = summarize("SM7_QV100")
    assert (q["sms"], q["warps_per_sm"], q["core_mhz"], q["l2_bytes"], q["dram_type"]) == (80, 64, 1132.0, 6 << 20, "HBM2")
    assert round(q["dram_gbps"], 1) == 870.4           # 32 ch x 16 B x 850 MHz x 2
    assert round(summarize("SM86_RTX3070")["dram_gbps"]) == 448
    assert round(summarize("SM2_GTX480")["dram_gbps"], 1) == 177.4


def test_seed_models():
    fx = load_config(gpu="QuadroFX5800", env=False)
    assert fx.num_cores == 30 and fx["gpgpu_n_clusters"] == 10 and fx["gpgpu_n_mem"] == 8
    assert fx["gpgpu_clock_domains"].as_tuple() == (325.0, 650.0, 650.0, 800.0)
    assert fx["gpgpu_cache:dl1"] is None and fx["gpgpu_cache:dl2_texture_only"] is True
    assert fx["gpgpu_l2_rop_latency"] == 460
    assert fx.icnt is not None and fx.icnt["k"] == 18  # 10 clusters + 8 memory controllers
    assert round(summarize("QuadroFX5800")["dram_gbps"], 1) == 102.4
    c2050 = load_config(gpu="TeslaC2050", env=False)
    assert c2050.num_cores == 14 and c2050.warp_size == 32 and c2050["gpgpu_shader_core_pipeline"].max_warps == 48
    assert c2050.icnt["k"] == 14 + 12
    assert round(summarize("TeslaC2050")["dram_gbps"]) == 144


def test_main_configs_lists_all(capsys):
    assert main_configs([]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 7
    assert out[4].startswith("SM7_QV100") and out[4].endswith("(default)")
    assert "80 SMs x 64 warps, core 1132 MHz, L1D+smem 128 KB/SM, L2 6 MB, HBM2 870 GB/s @ 850 MHz" in out[4]


def test_main_configs_one_gpu_dump_and_error(capsys):
    assert main_configs(["SM86_RTX3070"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 224 and any(ln.startswith("-gpgpu_n_clusters ") and " 46 # " in ln for ln in out)
    assert main_configs(["nope"]) == 2
    assert "unknown GPU config 'nope'" in capsys.readouterr().err


def test_configs_diff_and_describe(capsys, tmp_path):
    assert main_configs(["--diff", "SM7_QV100", "SM86_RTX3070"]) == 0
    out = capsys.readouterr().out.splitlines()
    line = next(ln for ln in out if ln.startswith("-gpgpu_n_clusters "))
    assert line.split() == ["-gpgpu_n_clusters", "80", "|", "46"]
    assert not any(ln.startswith("-gpgpu_shader_cta ") for ln in out)  # 32 in both
    (tmp_path / "my.config").write_text("-gpgpu_n_clusters 2\n")
    assert main_configs(["--diff", "SM7_QV100", str(tmp_path / "my.config")]) == 0
    assert "-gpgpu_n_clusters" in capsys.readouterr().out
    assert main_configs(["--describe", "launch latency"]) == 0
    out = capsys.readouterr().out
    assert "[sim]" in out and "-gpgpu_kernel_launch_latency (int, default '0')" in out
    assert main_configs(["--diff", "SM7_QV100", "nope"]) == 2
