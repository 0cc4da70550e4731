"""Device printf formatting (vprintf argument buffer layout) against C's rules."""

import struct

from gpgpusim.functional.printf import format_device


def _fmt(fmt, layout, *vals, strings=None):
    buf = bytearray()
    for code, v in zip(layout, vals, strict=True):
        size = struct.calcsize("<" + code)
        while len(buf) % size:
            buf.append(0)
        buf += struct.pack("<" + code, v)
    strings = strings or {}
    return format_device(fmt, lambda off, n: bytes(buf[off:off + n]), lambda a: strings[a])


def test_integer_conversions_and_lengths():
    text, n = _fmt("%d %i %u %x %X %o|%5d|%-5d|%05d|%+d|% d", "iiIIIIiiiii",
                   -7, 42, 4000000000, 255, 255, 8, 3, 3, 3, 3, 3)
    assert text == "-7 42 4000000000 ff FF 10|    3|3    |00003|+3| 3" and n == 11
    text, n = _fmt("%ld %lld %lu %llu %llx %hd %hhu", "qqQQQii",
                   -1234567890123, 2**40, 2**63, 2**64 - 1, 0xABCDEF0123, 70000, 300)
    assert text == f"-1234567890123 {2**40} {2**63} {2**64 - 1} abcdef0123 4464 44" and n == 7


def test_mixed_alignment_and_floats():
    # int (4) then double (8, aligned to 8) then char (4)
    text, n = _fmt("%d %f %.3e %g %c %5.1f%%", "idddid", 1, 0.5, 12345.678, 1e-5, 65, 2.25)
    assert text == "1 0.500000 1.235e+04 1e-05 A   2.2%" and n == 6


def test_strings_pointers_star_width():
    text, n = _fmt("[%s] [%-4s] %p %p [%*d] [%.*f]", "QQQQiiid", 0x1000, 0x2000, 0xC0000000, 0, 6, 42, 2, 3.14159,
                   strings={0x1000: "hello", 0x2000: "ab"})
    assert text == "[hello] [ab  ] 0xc0000000 (nil) [    42] [3.14]" and n == 8


def test_no_arguments():
    assert _fmt("plain text\n", "") == ("plain text\n", 0)
