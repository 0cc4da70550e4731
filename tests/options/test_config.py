"""Option registry, config loading and the option dump (checklist C195, C209, C210)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpgpusim.errors import Err
from gpgpusim.options import ConfigError, load_config, registry, shipped_gpus
from gpgpusim.options.config import parse_icnt, tokenize
import os

# ../shared beside the checkout (the reference data); GPGPUSIM_SHARED overrides.
SHARED_DIR = os.environ.get("GPGPUSIM_SHARED") or str(Path(__file__).resolve().parents[3] / "shared")

REF = Path(SHARED_DIR, "reference")
REF_CONFIGS = sorted((REF / "gpgpusim-configs").glob("*/gpgpusim.config"))
needs_ref = pytest.mark.skipif(not REF.is_dir(), reason="reference data not available")


def ref_dump(log: str) -> list[str]:
    lines = (REF / "gpgpusim-output" / log).read_text().split("\n")
    start = lines.index("GPGPU-Sim: Configuration options:") + 2
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("DRAM Timing Options"))
    return lines[start:end]


@needs_ref
@pytest.mark.parametrize("log,gpu", [("vectoradd_qv100.log", "SM7_QV100"), ("sfu_rtx3070.log", "SM86_RTX3070")])
def test_option_dump_equals_cpp_option_by_option(log, gpu):
    ours = load_config(gpu=gpu, env=False).dump_lines()
    ref = ref_dump(log)
    assert len(ours) == len(ref) == 224
    for a, b in zip(ours, ref, strict=True):
        assert a == b


@needs_ref
def test_lat0_override_shows_in_dump():
    cfg = load_config(overrides=["-gpgpu_kernel_launch_latency 0"], env=False)
    assert ref_dump("vectoradd_qv100_lat0.log") == cfg.dump_lines()


@needs_ref
def test_dram_timing_block_matches_log():
    lines = (REF / "gpgpusim-output" / "vectoradd_qv100.log").read_text().split("\n")
    i = lines.index("DRAM Timing Options:")
    ref = [ln for ln in lines[i:i + 17] if " # " in ln or ln == "DRAM Timing Options:"]
    ref = [ln for ln in ref if not ln.startswith("Extracting")]
    ours = load_config(env=False).dram_timing_lines()
    # the C++ log has stdout of a child process interleaved into the RRD line; compare the rest
    assert [x for x in ours if not x.startswith("RRD")] == [x for x in ref if not x.startswith("RRD")]


@needs_ref
@pytest.mark.parametrize("path", REF_CONFIGS, ids=lambda p: p.parent.name)
def test_every_reference_config_loads(path):
    cfg = load_config(path, env=False)
    assert cfg.num_cores > 0
    assert cfg.warp_size == 32


@needs_ref
@pytest.mark.parametrize("path", REF_CONFIGS, ids=lambda p: p.parent.name)
def test_shipped_config_has_the_reference_values(path):
    ours = load_config(gpu=path.parent.name, env=False)
    theirs = load_config(path, env=False)
    assert ours.to_dict() == theirs.to_dict()


@pytest.mark.parametrize("gpu", shipped_gpus())
def test_every_shipped_config_loads(gpu):
    cfg = load_config(gpu=gpu, env=False)
    assert cfg.gpu_name == gpu
    assert cfg.core_clock_mhz > 0


def test_default_is_qv100_typed_values():
    cfg = load_config(env=False)
    assert cfg["gpgpu_n_clusters"] == 80
    assert cfg.n_clusters == 80
    assert cfg["gpgpu_n_cores_per_cluster"] == 1
    assert cfg.num_cores == 80
    assert cfg.warp_size == 32
    assert cfg.max_threads_per_core == 2048
    assert cfg["gpgpu_shader_cta"] == 32
    assert cfg["gpgpu_shader_registers"] == 65536
    assert cfg["gpgpu_shmem_size"] == 98304
    assert cfg["gpgpu_clock_domains"].as_tuple() == (1132.0, 1132.0, 1132.0, 850.0)
    assert cfg.l2_size_bytes == 6 * 1024 * 1024
    assert cfg.dram_bus_width_bits == 32 * 16 * 8
    assert cfg["gpgpu_ptx_sim_mode"] == 0 and not cfg.functional_only
    assert cfg["gpgpu_ptx_force_max_capability"] == 70
    assert cfg["gpgpu_max_concurrent_kernel"] == 128
    assert cfg["gpgpu_kernel_launch_latency"] == 5000
    assert cfg["gpgpu_perf_sim_memcpy"] is True
    assert cfg.raw("gpgpu_dram_timing_opt").startswith("nbk=16:CCD=1:RRD=3:RCD=12:RAS=28:RP=12:RC=40: CL=12")


def test_later_wins_env_then_overrides(monkeypatch):
    monkeypatch.setenv("GPGPUSIM_OPTIONS", "-gpgpu_n_clusters 40 -gpgpu_shader_cta=16")
    cfg = load_config(overrides=["-gpgpu_n_clusters=20"])
    assert cfg["gpgpu_n_clusters"] == 20
    assert cfg["gpgpu_shader_cta"] == 16
    assert cfg.origin["gpgpu_shader_cta"] == "$GPGPUSIM_OPTIONS"


def test_ptx_sim_mode_func_env(monkeypatch):
    monkeypatch.setenv("PTX_SIM_MODE_FUNC", "1")
    assert load_config().functional_only
    assert not load_config(env=False).functional_only


def test_comments_quotes_and_includes(tmp_path):
    (tmp_path / "base.config").write_text("-gpgpu_n_clusters 7 # seven\n-gpgpu_n_mem 4\n")
    (tmp_path / "top.config").write_text(
        "# a comment line\n-config base.config\n-gpgpu_n_mem 6\n"
        '-gpgpu_dram_timing_opt "nbk=8:CCD=2:RRD=3:RCD=4:RAS=5:RP=6:RC=7:\n   CL=8:WL=9:CDLR=10:WR=11"\n')
    cfg = load_config(tmp_path / "top.config", env=False)
    assert cfg["gpgpu_n_clusters"] == 7
    assert cfg["gpgpu_n_mem"] == 6
    assert cfg.raw("gpgpu_dram_timing_opt") == "nbk=8:CCD=2:RRD=3:RCD=4:RAS=5:RP=6:RC=7: CL=8:WL=9:CDLR=10:WR=11"
    t = cfg["gpgpu_dram_timing_opt"]
    assert (t["nbk"], t["CL"], t["WR"], t["nbkgrp"]) == (8, 8, 11, 1)


def test_unknown_option_suggests(tmp_path):
    with pytest.raises(ConfigError) as e:
        load_config(overrides=["-gpgpu_n_cluster=4"], env=False)
    assert e.value.code == Err.InitializationError
    assert "unknown option -gpgpu_n_cluster" in str(e.value)
    assert "did you mean -gpgpu_n_clusters?" in str(e.value)


def test_malformed_value_names_option_and_file(tmp_path):
    p = tmp_path / "bad.config"
    p.write_text("-gpgpu_n_clusters eighty\n")
    with pytest.raises(ConfigError) as e:
        load_config(p, env=False)
    msg = str(e.value)
    assert "-gpgpu_n_clusters" in msg and "'eighty'" in msg and str(p) in msg


def test_malformed_cache_string_is_an_error():
    with pytest.raises(ConfigError, match="gpgpu_cache:dl1.*write policy"):
        load_config(overrides=["-gpgpu_cache:dl1 S:4:128:64,L:Q:m:L:L,A:512:8,16:0,32"], env=False)


def test_missing_value_and_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="has no value"):
        load_config(overrides=["-gpgpu_n_clusters"], env=False)
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(tmp_path / "nope.config", env=False)
    with pytest.raises(ConfigError, match="unknown GPU config 'SM7_QV10'.*did you mean SM7_QV100"):
        load_config(gpu="SM7_QV10", env=False)


def test_unterminated_quote():
    with pytest.raises(ConfigError, match="unterminated"):
        tokenize('-a "b c', "x")


def test_non_32_warp_is_not_supported():
    from gpgpusim.errors import NotSupportedError

    with pytest.raises(NotSupportedError, match="warp size 16"):
        load_config(overrides=["-gpgpu_shader_core_pipeline 1024:16"], env=False)


def test_registry_declares_each_option_once():
    reg = registry()
    assert len(reg.dump_order) == 224
    assert len(set(reg.dump_order)) == 223  # -gpgpu_shmem_warp_parts is registered twice in 4.2
    assert set(reg.groups) == {"ptx", "icnt", "functional", "core", "memory", "power", "sim"}
    for opt in reg.by_name.values():
        assert opt.desc is not None and opt.pyname.isidentifier()
        opt.parse(opt.default)  # every default parses


def test_network_mode_1_reads_interconnect_file(tmp_path):
    (tmp_path / "net.icnt").write_text("// c\ntopology = fly;\nk = 52;\nn = 1;\ninternal_speedup = 2.0;\n"
                                        "packet_size ={{1,2},{3}};\n")
    (tmp_path / "g.config").write_text("-network_mode 1\n-inter_config_file net.icnt\n")
    cfg = load_config(tmp_path / "g.config", env=False)
    assert cfg.icnt == {"topology": "fly", "k": 52, "n": 1, "internal_speedup": 2.0, "packet_size": "{{1,2},{3}}"}


def test_icnt_parse_error():
    with pytest.raises(ConfigError, match="expected 'key = value;'"):
        parse_icnt("topology fly;", "x.icnt")


def test_renamed_3x_options_set_their_42_counterparts():
    cfg = load_config(overrides=["-gpgpu_flush_cache 0", "-rop_latency 120", "-visualizer_clevel 3"], env=False)
    assert cfg["gpgpu_flush_l1_cache"] is False
    assert cfg["gpgpu_l2_rop_latency"] == 120
    assert cfg["visualizer_zlevel"] == 3
    assert cfg.origin["gpgpu_l2_rop_latency"] == "override (as -rop_latency)"
    assert any(ln.startswith("-gpgpu_l2_rop_latency ") and " 120 # " in ln for ln in cfg.dump_lines())
    assert not any(ln.startswith("-rop_latency") for ln in cfg.dump_lines())


def test_include_cycle_and_quoted_hash(tmp_path):
    (tmp_path / "a.config").write_text("-config a.config\n")
    with pytest.raises(ConfigError, match="nested more than 16 deep"):
        load_config(tmp_path / "a.config", env=False)
    (tmp_path / "b.config").write_text('-hw_perf_bench_name "bench #1" # comment\n-trace_components none\n')
    cfg = load_config(tmp_path / "b.config", env=False)
    assert cfg["hw_perf_bench_name"] == "bench #1"
    assert cfg.raw("trace_components") == "none"
    with pytest.raises(ConfigError, match="-config file 'missing.config' not found"):
        load_config(overrides=["-config missing.config"], env=False)


def test_expected_option_token(tmp_path):
    (tmp_path / "c.config").write_text("gpgpu_n_clusters 4\n")
    with pytest.raises(ConfigError, match=r"expected an option \(-name\), got 'gpgpu_n_clusters'"):
        load_config(tmp_path / "c.config", env=False)


def test_overrides_as_one_string():
    cfg = load_config(overrides="-gpgpu_n_clusters 12 -gpgpu_shader_cta=4", env=False)
    assert (cfg["gpgpu_n_clusters"], cfg["gpgpu_shader_cta"]) == (12, 4)


# ---- option types and checks as C++ GPGPU-Sim declares and applies them -----------------------

def _dump_value(cfg, name):
    line = next(ln for ln in cfg.dump_lines() if ln.startswith(f"-{name} "))
    return line.split(" # ")[0].split()[-1]


def test_options_have_the_cpp_types():
    """A few declarations the C++ source types differently from what their values suggest."""
    reg = registry()
    kinds = {n: reg.lookup(n).kind for n in (
        "gpgpu_n_clusters", "gpgpu_n_mem", "icnt_flit_size", "dram_dual_bus_interface", "gpgpu_tensor_core_avail",
        "gpgpu_simple_dram_model", "gpgpu_ignore_resources_limitation", "gpgpu_adaptive_cache_config",
        "gpgpu_ptx_instruction_classification", "gpgpu_max_cycle", "gpgpu_shmem_warp_parts", "ptx_opcode_latency_sfu")}
    assert kinds == {
        "gpgpu_n_clusters": "uint", "gpgpu_n_mem": "uint", "icnt_flit_size": "uint", "dram_dual_bus_interface": "uint",
        "gpgpu_tensor_core_avail": "int", "gpgpu_simple_dram_model": "bool",
        "gpgpu_ignore_resources_limitation": "bool", "gpgpu_adaptive_cache_config": "bool",
        "gpgpu_ptx_instruction_classification": "int", "gpgpu_max_cycle": "int64", "gpgpu_shmem_warp_parts": "int",
        "ptx_opcode_latency_sfu": "uint_text"}


def test_dump_prints_values_as_the_cpp_types_hold_them():
    cfg = load_config(overrides=["-dram_dual_bus_interface 2", "-gpgpu_tensor_core_avail 3", "-gpgpu_n_clusters 010",
                                 "-gpgpu_max_cycle 0x10", "-ptx_opcode_latency_sfu 08"], env=False)
    assert [_dump_value(cfg, n) for n in ("dram_dual_bus_interface", "gpgpu_tensor_core_avail", "gpgpu_n_clusters",
                                          "gpgpu_max_cycle", "ptx_opcode_latency_sfu")] == ["2", "3", "8", "16", "08"]
    assert cfg["ptx_opcode_latency_sfu"] == 8


@pytest.mark.parametrize("override,msg", [
    ("-gpgpu_n_clusters -4", "-gpgpu_n_clusters: '-4' is negative; this option is unsigned"),
    ("-icnt_flit_size -1", "-icnt_flit_size: '-1' is negative"),
    ("-gpgpu_simple_dram_model 2", "-gpgpu_simple_dram_model: '2' is not a boolean"),
    ("-gpgpu_adaptive_cache_config 3", "-gpgpu_adaptive_cache_config: '3' is not a boolean"),
    ("-gpgpu_clock_domains nan:1:1:1", "-gpgpu_clock_domains: clock domains 'nan:1:1:1'.*positive finite"),
    ("-gpgpu_dram_timing_opt nbk=16:CL=12", "-gpgpu_dram_timing_opt: DRAM timing 'nbk=16:CL=12': missing CCD"),
    ("-gpgpu_runtime_stat 500:zz", "-gpgpu_runtime_stat: runtime stat '500:zz': the flag must be hexadecimal"),
    ("-gpgpu_n_clusters 0", "-gpgpu_n_clusters must be at least 1"),
])
def test_malformed_values_are_rejected_naming_the_option(override, msg):
    with pytest.raises(ConfigError, match=msg):
        load_config(overrides=[override], env=False)


def test_runtime_stat_flag_reads_as_hex():
    cfg = load_config(overrides=["-gpgpu_runtime_stat 500:10"], env=False)
    assert (cfg["gpgpu_runtime_stat"].freq, cfg["gpgpu_runtime_stat"].flag) == (500, 16)


@pytest.mark.parametrize("override,msg", [
    ("-gpgpu_scheduler foo", r"-gpgpu_scheduler 'foo' names no known scheduler; valid: lrr, gto, two_level_active"),
    ("-network_mode 7", r"-network_mode 7 is not supported; valid values: 1 \(intersim2 \(BookSim file\)\), "
                        r"2 \(local crossbar\)"),
    ("-gpgpu_dram_scheduler 2", r"-gpgpu_dram_scheduler 2 is not supported; valid values: 0 \(FIFO\), 1 \(FR-FCFS\)"),
    ("-gpgpu_memory_partition_indexing 6", r"-gpgpu_memory_partition_indexing 6 is not supported"),
])
def test_values_gpgpusim_rejects_at_start_up(override, msg):
    with pytest.raises(ConfigError, match=msg) as e:
        load_config(overrides=[override], env=False)
    assert str(e.value).startswith("override: ")


def test_dram_banks_must_split_over_sub_partitions():
    with pytest.raises(ConfigError, match=r"^-gpgpu_dram_timing_opt nbk=16 \(from .*SM7_QV100/gpgpusim.config\) is "
                                          r"not a multiple of -gpgpu_n_sub_partition_per_mchannel 32 \(from override\)"):
        load_config(overrides=["-gpgpu_n_sub_partition_per_mchannel 32"], env=False)
    with pytest.raises(ConfigError, match=r"^override: -gpgpu_n_sub_partition_per_mchannel 3 must be a power of two"):
        load_config(overrides=["-gpgpu_n_sub_partition_per_mchannel 3"], env=False)


def test_explicit_chip_bits_need_power_of_two_channels():
    amap = "-gpgpu_mem_addr_mapping " + "0" * 32 + "RRRRRRRRRRRRRDDDBBBBCCCCCCCSSSSS"
    assert load_config(overrides=[amap, "-gpgpu_n_mem 8"], env=False)["gpgpu_mem_addr_mapping"].bits["D"] == [16, 17, 18]
    with pytest.raises(ConfigError, match="without dramid@ needs a power-of-two -gpgpu_n_mem, got 12"):
        load_config(overrides=[amap, "-gpgpu_n_mem 12"], env=False)


@pytest.mark.parametrize("sched", ["lrr", "gto", "two_level_active:6:0:1", "rrr", "old", "warp_limiting:2:16"])
def test_every_cpp_scheduler_name_is_accepted(sched):
    assert load_config(overrides=[f"-gpgpu_scheduler {sched}"], env=False).raw("gpgpu_scheduler") == sched


def test_nonzero_sim_mode_is_functional():
    # GPGPU-Sim tests g_ptx_sim_mode as a truth value
    assert load_config(overrides=["-gpgpu_ptx_sim_mode 2"], env=False).functional_only


def test_dram_timing_block_only_for_the_keyed_form():
    cfg = load_config(overrides=["-gpgpu_dram_timing_opt 16:2:6:12:28:12:40:12:4:5:12:4:3:2"], env=False)
    assert cfg.dram_timing_lines() == []
    cfg = load_config(overrides=["-gpgpu_dram_timing_opt nbk=16;CCD=2;RRD=6;RCD=12;RAS=28;RP=12;RC=40;CL=12;WL=4;"
                                 "CDLR=5;WR=12"], env=False)
    lines = cfg.dram_timing_lines()
    assert lines[0] == "DRAM Timing Options:" and len(lines) == 15
    assert lines[12:] == ["nbkgrp                                  1 # number of bank groups",
                          "CCDL                                    0 # column to column delay between accesses to "
                          "different bank groups",
                          "RTPL                                    0 # read to precharge delay between accesses to "
                          "different bank groups"]


def test_icnt_unknown_parameter_suggests(tmp_path):
    with pytest.raises(ConfigError, match=r"x.icnt: unknown interconnect parameter 'vc_buff_size'; "
                                          r"did you mean 'vc_buf_size'\?"):
        parse_icnt("topology = fly;\nvc_buff_size = 8;\n", "x.icnt")
    with pytest.raises(ConfigError, match=r"unknown interconnect parameter 'zzz'$"):
        parse_icnt("zzz = 1;", "x.icnt")


def test_icnt_value_types_as_booksim_takes_them():
    with pytest.raises(ConfigError, match=r"'internal_speedup' takes a decimal number \(e.g. 2.0\), got an integer"):
        parse_icnt("internal_speedup = 2;", "x.icnt")
    with pytest.raises(ConfigError, match=r"'topology' takes a name or \{list\}, got an integer"):
        parse_icnt("topology = 3;", "x.icnt")
    # names that take a number or a {per-class list}
    assert parse_icnt("packet_size = 1; injection_rate = {0.1,0.2}; read_request_size = 2;", "x") == {
        "packet_size": 1, "injection_rate": "{0.1,0.2}", "read_request_size": 2}


@needs_ref
@pytest.mark.parametrize("gpu", [p.parent.name for p in REF_CONFIGS])
def test_shipped_icnt_files_parse_like_the_reference_ones(gpu):
    ref = sorted((REF / "gpgpusim-configs" / gpu).glob("*.icnt"))
    ours = sorted((Path(__file__).resolve().parents[2] / "gpgpusim" / "configs" / gpu).glob("*.icnt"))
    assert [p.name for p in ours] == [p.name for p in ref] and len(ref) == 1
    a, b = parse_icnt(ours[0].read_text(), str(ours[0])), parse_icnt(ref[0].read_text(), str(ref[0]))
    assert a == b and len(a) >= 38


def test_quadrofx5800_keeps_the_manuals_gt200_figures():
    """Seeds S000/S002: 10 clusters + 8 memory controllers = an 18-node butterfly, 325 MHz SIMT
    clock, 800 MHz DRAM command clock, texture-only L2, ROP latency 460 L2 cycles."""
    cfg = load_config(gpu="QuadroFX5800", env=False)
    assert (cfg["gpgpu_n_clusters"], cfg["gpgpu_n_mem"]) == (10, 8)
    assert cfg["gpgpu_clock_domains"].as_tuple() == (325.0, 650.0, 650.0, 800.0)
    assert cfg["gpgpu_cache:dl2_texture_only"] is True and cfg["gpgpu_l2_rop_latency"] == 460
    assert (cfg.icnt["topology"], cfg.icnt["k"], cfg.icnt["n"], cfg.icnt["routing_function"]) == ("fly", 18, 1, "dest_tag")
    assert cfg["gpgpu_cache:dl1"] is None and cfg["gpgpu_coalesce_arch"] == 13
