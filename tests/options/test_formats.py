"""Microformat value classes: parse/format round trips and clear errors (C211 and friends)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpgpusim.options import formats as F
from gpgpusim.options.config import _pairs, tokenize
import os

# ../shared beside the checkout (the reference data); GPGPUSIM_SHARED overrides.
SHARED_DIR = os.environ.get("GPGPUSIM_SHARED") or str(Path(__file__).resolve().parents[3] / "shared")

CACHE_STRINGS = [
    "S:4:128:64,L:T:m:L:L,A:512:8,16:0,32",      # QV100 L1D (4.x, sectored, port width)
    "S:32:128:24,L:B:m:L:P,A:192:4,32:0,32",     # QV100 L2
    "N:64:128:16,L:R:f:N:L,S:2:48,4",            # QV100 L1I
    "N:4:128:256,L:R:m:N:L,T:512:8,128:2",       # QV100 texture (FIFO entries)
    "N:128:64:8,L:R:f:N:L,S:2:64,4",             # QV100 constant
    "64:128:8,L:B:m:N,A:16:4,4",                 # 3.x L2
    "32:128:4,L:L:m:N:H,A:32:8,8",               # 3.x with set-index letter
    "8:128:5,L:R:m:N,F:128:4,128:2",             # 3.x texture FIFO
    "16:128:4,R:R:m:N,A:8:4,4",                  # 3.x random replacement
]


@pytest.mark.parametrize("s", CACHE_STRINGS)
def test_cache_round_trip(s):
    assert F.CacheConfig.parse(s).format() == s


def test_cache_fields():
    c = F.CacheConfig.parse("S:4:128:64,L:T:m:L:L,A:512:8,16:0,32")
    assert (c.nsets, c.line_bytes, c.assoc, c.size_bytes) == (4, 128, 64, 32768)
    assert c.is_sectored and c.write_policy == "T" and F.WRITE_POLICY[c.write_policy] == "write_through"
    assert (c.mshr_type, c.mshr_entries, c.mshr_max_merge, c.miss_queue, c.fifo_entries, c.data_port_width) == \
        ("A", 512, 8, 16, 0, 32)
    old = F.CacheConfig.parse("64:128:8,L:B:m:N,A:16:4,4")
    assert old.sector is None and old.set_index is None and old.size_bytes == 65536


@pytest.mark.parametrize("bad,msg", [
    ("S:4:128,L:T:m:L:L,A:512:8,16", "geometry"),
    ("S:4:128:64,X:T:m:L:L,A:512:8,16", "replacement policy"),
    ("S:4:128:64,L:T:q:L:L,A:512:8,16", "allocation policy"),
    ("S:4:128:64,L:T:m:L:Z,A:512:8,16", "set-index"),
    ("S:4:128:64,L:T:m:L:L,Q:512:8,16", "MSHR type"),
    ("S:4:128:64,L:T:m:L:L,A:512:8", "4 or 5"),
    ("S:4:12x:64,L:T:m:L:L,A:512:8,16", "bsize"),
])
def test_cache_errors(bad, msg):
    with pytest.raises(ValueError, match=msg):
        F.CacheConfig.parse(bad)


def test_none_cache_is_none():
    assert F.parse_value("CacheConfig", "none") is None
    assert F.format_value("CacheConfig", None) == "none"


@given(nsets=st.integers(1, 4096), bsize=st.sampled_from([32, 64, 128, 256]), assoc=st.integers(1, 256),
       sector=st.sampled_from([None, True, False]), rep=st.sampled_from(list(F.REPLACEMENT)),
       wr=st.sampled_from(list(F.WRITE_POLICY)), alloc=st.sampled_from(list(F.ALLOC_POLICY)),
       wra=st.sampled_from(list(F.WRITE_ALLOC)), sidx=st.sampled_from([None, *F.SET_INDEX]),
       mshr=st.sampled_from(list(F.MSHR_TYPE)), ment=st.integers(0, 1024), merge=st.integers(0, 64),
       mq=st.integers(0, 256), fifo=st.one_of(st.none(), st.integers(0, 256)),
       port=st.one_of(st.none(), st.integers(0, 128)))
def test_cache_round_trip_property(nsets, bsize, assoc, sector, rep, wr, alloc, wra, sidx, mshr, ment, merge,
                                   mq, fifo, port):
    if sector:
        bsize = F.SECTOR_LINE_BYTES  # sectored caches have 4 x 32-byte sectors per line
    c = F.CacheConfig(nsets, bsize, assoc, rep, wr, alloc, wra, mshr, ment, merge, mq, sector, sidx, fifo, port)
    assert F.CacheConfig.parse(c.format()) == c


DRAM = [
    "nbk=16:CCD=1:RRD=3:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=2:CDLR=3:WR=10:nbkgrp=4:CCDL=2:RTPL=3",
    "nbk=16:CCD=4:RRD=12:RCD=24:RAS=55:RP=24:RC=78:CL=24:WL=8:CDLR=10:WR=24:nbkgrp=4:CCDL=6:RTPL=4",
    "4:2:8:12:21:13:34:9:4:5:13:1:0:0",
    "16:2:6:12:28:12:40:12:4:5:12",
]


@pytest.mark.parametrize("s", DRAM)
def test_dram_round_trip(s):
    assert F.DramTiming.parse(s).format() == s


def test_dram_forms_agree_and_whitespace():
    a = F.DramTiming.parse("nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40: CL=12:WL=4:CDLR=5:WR=12:nbkgrp=1:CCDL=0:RTPL=0")
    b = F.DramTiming.parse("16:2:6:12:28:12:40:12:4:5:12:1:0:0")
    assert all(a[k] == b[k] for k in F.DRAM_FIELDS)
    assert F.DramTiming.parse("16:2:6:12:28:12:40:12:4:5:12")["nbkgrp"] == 1


KEYED11 = "nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12"


@pytest.mark.parametrize("bad,msg", [
    ("nbk=16:XYZ=3", "unknown parameter 'XYZ'"), ("nbk=16:2:3", "mixes"),
    ("1:2:3", "expected 11 to 14"), ("16:2:6:12:28:12:40:12:4:5", "expected 11 to 14"),
    ("nbk=x:" + KEYED11[6:], "DRAM timing nbk: 'x' is not an integer"),
    ("nbk=16:CL=12", "missing CCD, RRD, RCD, RAS, RP, RC, WL, CDLR, WR"),
    (KEYED11.replace("RP=12:", ""), "missing RP "),
    (KEYED11 + ":nbkgrp=0", "bank groups cannot be zero"),
    (KEYED11 + ":CCDL", "'CCDL' has no value"),
    (KEYED11.replace("CL=12", "CL=-1"), "negative; this option is unsigned"),
    ("", "empty"),
])
def test_dram_errors(bad, msg):
    with pytest.raises(ValueError, match=msg):
        F.DramTiming.parse(bad)


def test_dram_keyed_form_as_gpgpusim_reads_it():
    # '=', ':' and ';' all separate (option_parser_delimited_string(..., "=:;")); whitespace too
    a = F.DramTiming.parse("nbk=16;CCD=2;RRD=6;RCD=12;RAS=28;RP=12;RC=40;\n CL=12;WL=4;CDLR=5;WR=12")
    assert [a[k] for k in F.DRAM_FIELDS] == [16, 2, 6, 12, 28, 12, 40, 12, 4, 5, 12, 1, 0, 0]
    # a repeated name keeps the last value; numbers follow the option parser's rules (0x hex, 0 octal)
    b = F.DramTiming.parse(KEYED11 + ":CL=0x10:WL=010:nbkgrp=4")
    assert (b["CL"], b["WL"], b["nbkgrp"]) == (16, 8, 4)
    assert b.format() == KEYED11.replace("CL=12", "CL=16").replace("WL=4", "WL=8") + ":nbkgrp=4"
    rows = b.print_rows()
    assert [r[0] for r in rows] == ["nbk", "CCD", "RRD", "RCD", "RAS", "RP", "RC", "CDLR", "WR", "CL", "WL",
                                    "nbkgrp", "CCDL", "RTPL"]
    assert rows[-3:] == [("nbkgrp", 4, "number of bank groups"),
                         ("CCDL", 0, "column to column delay between accesses to different bank groups"),
                         ("RTPL", 0, "read to precharge delay between accesses to different bank groups")]
    assert F.DramTiming.parse("16:2:6:12:28:12:40:12:4:5:12").print_rows() == []


@pytest.mark.parametrize("s", ["1132.0:1132.0:1132.0:850.0", "700.0:700.0:700.0:924.0"])
def test_clock_round_trip(s):
    assert F.ClockDomains.parse(s).format() == s


def test_clock_values_and_errors():
    assert F.ClockDomains.parse("1132:1132:1132:3500.5").as_tuple() == (1132.0, 1132.0, 1132.0, 3500.5)
    with pytest.raises(ValueError, match="expected <core>"):
        F.ClockDomains.parse("1:2:3")
    for bad in ("0:1:1:1", "nan:1:1:1", "1:inf:1:1", "1:1:1:-5"):
        with pytest.raises(ValueError, match="positive finite"):
            F.ClockDomains.parse(bad)


def test_addr_mapping():
    s = "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS"
    m = F.AddrMapping.parse(s)
    assert m.format() == s and m.dramid_start == 8
    bits = m.bits
    assert bits["S"] == [0, 1, 2, 3, 4] and bits["C"] == [5, 6, 7, 9, 10, 11] and bits["B"] == [8, 12, 13, 14]
    assert len(bits["R"]) == 13 and min(bits["R"]) == 15
    old = "00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBBCCCC.CCCSSSSS"
    assert F.AddrMapping.parse(old).format() == old
    with pytest.raises(ValueError, match="dramid@"):
        F.AddrMapping.parse("chip@8;0000")
    with pytest.raises(ValueError, match="only 0/D/B/R/C/S"):
        F.AddrMapping.parse("dramid@8;0000XXXX")


def test_addr_mapping_as_addrdec_parseoption_reads_it():
    low = "dramid@8;00000000.00000000.00000000.00000000.0000rrrr.rrrrrrrr.rbbbcccb.cccsssss"
    assert F.AddrMapping.parse(low).bits == F.AddrMapping.parse(low.upper().replace("DRAMID", "dramid")).bits
    assert F.AddrMapping.parse("0" * 32 + "|RRRRRRRR RRRRRRRR|BBBBCCCC CCCSSSSS").bits["B"] == [12, 13, 14, 15]
    for bad, msg in (("dramid@8;", "exactly 64 bits, got 0"), ("dramid@8;" + "R" * 70, "exactly 64 bits, got 70"),
                     ("dramid@8;" + "0" * 59 + "DDSSS", "D bits cannot be given together with dramid@")):
        with pytest.raises(ValueError, match=msg):
            F.AddrMapping.parse(bad)


def test_address_decoder_masks():
    m = F.AddrMapping.parse("dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS")
    # 32 channels: 5 chip bits inserted at bit 8 (QV100, matches vectoradd_qv100.log)
    assert F.address_decoder_lines(m, 1, 32, 2) == [
        "addr_dec_mask[CHIP]  = 0000000000001f00 \thigh:13 low:8",
        "addr_dec_mask[BK]    = 00000000000e2000 \thigh:20 low:13",
        "addr_dec_mask[ROW]   = 00000001fff00000 \thigh:33 low:20",
        "addr_dec_mask[COL]   = 000000000001c0ff \thigh:17 low:0",
        "addr_dec_mask[BURST] = 000000000000001f \thigh:5 low:0",
        "sub_partition_id_mask = 0000000000002000"]
    # 12 channels (not a power of two): masks stay as given, no chip bits; one sub-partition
    lines = F.address_decoder_lines(m, 1, 12, 1)
    assert lines[0] == "addr_dec_mask[CHIP]  = 0000000000000000 \thigh:64 low:0"
    assert lines[1] == "addr_dec_mask[BK]    = 0000000000007100 \thigh:15 low:8"
    assert lines[-1] == "sub_partition_id_mask = 0000000000000000"
    # no mapping string: -gpgpu_mem_address_mask presets (1: chip bits at 13)
    assert F.address_decoder_lines(None, 1, 8, 1)[:2] == [
        "addr_dec_mask[CHIP]  = 000000000000e000 \thigh:16 low:13",
        "addr_dec_mask[BK]    = 0000000000001800 \thigh:13 low:11"]
    assert F.address_decoder_lines(None, 7, 8, 1) is None


@pytest.mark.parametrize("cls,s", [
    (F.IntList, "4,13,4,5,145,21"), (F.IntList, "7200,8000,100,12000,1600"), (F.ColonInts, "32:28:16"),
    (F.PartitionQueues, "64:64:64:64"), (F.CorePipeline, "2048:32"), (F.CorePipeline, "1024:32:32"),
    (F.SpecializedUnit, "0,4,4,4,4,BRA"), (F.SpecializedUnit, "1,4,8,4,4,TENSOR"), (F.RuntimeStat, "500"),
    (F.RuntimeStat, "500:3"), (F.RuntimeStat, "500:1f"),
])
def test_small_formats_round_trip(cls, s):
    assert cls.parse(s).format() == s


def test_small_format_fields_and_errors():
    p = F.CorePipeline.parse("1536:32")
    assert (p.max_threads, p.warp_size, p.max_warps) == (1536, 32, 48)
    q = F.PartitionQueues.parse("8:8:8:8")
    assert q.icnt_to_l2 == 8 and q.l2_to_icnt == 8
    u = F.SpecializedUnit.parse("1,4,8,4,4,TENSOR")
    assert u.enabled and u.num_units == 4 and u.latency == 8 and u.name == "TENSOR"
    with pytest.raises(ValueError, match="multiple of the warp size"):
        F.CorePipeline.parse("1000:32")
    with pytest.raises(ValueError, match="<enabled> must be 0 or 1"):
        F.SpecializedUnit.parse("2,4,4,4,4,BRA")
    with pytest.raises(ValueError, match="not an integer"):
        F.IntList.parse("1,x,3")
    with pytest.raises(ValueError, match="i2\\$"):
        F.PartitionQueues.parse("8:8:8")


@given(st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=12))
def test_int_list_property(vals):
    s = ",".join(map(str, vals))
    assert F.IntList.parse(s).values == tuple(vals)
    assert F.IntList.parse(s).format() == s


def test_runtime_stat_flag_is_hex_as_sscanf_x():
    assert F.RuntimeStat.parse("500:10") == F.RuntimeStat(500, 16)
    assert F.RuntimeStat.parse("500:0x3") == F.RuntimeStat(500, 3)
    assert F.RuntimeStat.parse("10000:0").format() == "10000:0"
    with pytest.raises(ValueError, match="hexadecimal"):
        F.RuntimeStat.parse("500:zz")
    with pytest.raises(ValueError, match="at least 1 cycle"):
        F.RuntimeStat.parse("0:1")


def test_scalars():
    assert F.parse_value("int", "0x10") == 16
    assert F.parse_value("bool", "1") is True and F.parse_value("bool", "0") is False
    with pytest.raises(ValueError, match="not a boolean"):
        F.parse_value("bool", "yes")
    with pytest.raises(ValueError, match="not a boolean"):
        F.parse_value("bool", "2")  # GPGPU-Sim asserts a boolean option is 0 or 1
    with pytest.raises(ValueError, match="not an integer"):
        F.parse_value("int", "1.5")


@pytest.mark.parametrize("kind,text,value", [
    ("int", "-4", -4), ("int", "010", 8), ("int", "0x1f", 31), ("int", "0", 0), ("int", "00", 0),
    ("int", "2147483647", 2**31 - 1), ("uint", "4294967295", 2**32 - 1), ("uint", "+7", 7),
    ("int64", "9000000000", 9_000_000_000), ("uint_text", "08", 8),
])
def test_cpp_integer_rules(kind, text, value):
    """GPGPU-Sim's option parser: leading 0x = hex, other leading 0 = octal, C++ type ranges."""
    assert F.parse_value(kind, text) == value


@pytest.mark.parametrize("kind,text,msg", [
    ("uint", "-4", "negative; this option is unsigned"), ("int", "08", "octal"), ("int", "0x", "not an integer"),
    ("int", "12abc", "trailing text"), ("int", "2147483648", "above the range of int"),
    ("uint", "4294967296", "above the range of unsigned int"), ("int", "", "not an integer"),
    ("uint_text", "-1", "unsigned decimal"),
])
def test_cpp_integer_errors(kind, text, msg):
    with pytest.raises(ValueError, match=msg):
        F.parse_value(kind, text)


REF = Path(SHARED_DIR, "reference/gpgpusim-configs")


@pytest.mark.skipif(not REF.is_dir(), reason="reference data not available")
def test_every_microformat_value_in_reference_configs_round_trips():
    from gpgpusim.options import registry

    reg = registry()
    seen = 0
    for path in REF.glob("*/gpgpusim.config"):
        for name, value in _pairs(tokenize(path.read_text(), str(path)), str(path)):
            opt = reg.lookup(name)
            if opt is None or opt.kind in ("int", "uint", "int64", "uint_text", "bool", "str", "float"):
                continue
            v = opt.parse(value)
            if v is None:
                continue
            canon = re.sub(r"\s+", "", value)
            assert v.format() == canon or F.parse_value(opt.kind, v.format()) == v, (path, name, value)
            seen += 1
    assert seen > 50


def test_opcode_list_names_and_typed_defaults():
    from gpgpusim.options import load_config, registry

    cfg = load_config(env=False)
    assert cfg["ptx_opcode_latency_int"].named() == {"ADD": 4, "MAX": 13, "MUL": 4, "MAD": 5, "DIV": 145, "SHFL": 21}
    assert cfg["ptx_opcode_latency_fp"].named() == {"ADD": 4, "MAX": 13, "MUL": 4, "MAD": 5, "DIV": 39}
    reg = registry()
    assert reg.lookup("gpgpu_n_clusters").typed_default == 10
    assert reg.lookup("gpgpu_perf_sim_memcpy").typed_default is True
    assert reg.lookup("gpgpu_cache:dl1").typed_default is None
    assert reg.lookup("gpgpu_clock_domains").typed_default.as_tuple() == (500.0, 2000.0, 2000.0, 2000.0)


def test_unset_string_defaults():
    from gpgpusim.options import load_config

    cfg = load_config(gpu="QuadroFX5800", env=False)
    assert cfg["gpgpu_runtime_stat"].freq == 500
    from gpgpusim.options import registry

    assert registry().lookup("gpgpu_runtime_stat").typed_default == F.RuntimeStat(10000, 0)
    assert registry().lookup("gpgpu_mem_addr_mapping").typed_default is None
