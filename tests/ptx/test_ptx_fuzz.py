"""Robustness: any input either parses or raises PtxError -- never another exception."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpgpusim.errors import PtxError
from gpgpusim.ptx import parse_ptx

DATA = Path(__file__).parent / "data"
SAMPLE = (DATA / "snip1.ptx").read_text() + (DATA / "snip2.ptx").read_text().split(".address_size 64", 1)[1]
TOKENS = [
    ".version 9.0", ".target sm_75", ".address_size 64", ".entry", ".func", ".reg", ".b32", ".u64",
    ".param", ".shared", ".global", ".align", "%r<4>", "%r1", "%p1", "@%p1", "@!%p1", "bra", "L1:",
    "L1", "{", "}", "(", ")", "[", "]", ",", ";", "=", "+", "-", "|", "!", "_", "0f3F800000",
    "0d4000000000000000", "0x10", "017", "1.5", "7", "add.s32", "ld.global.f32", "ret;", "exit;",
    "generic(x)", "x", ".loc 1 2 3", ".file 1 \"a.cu\"", ".pragma \"nounroll\";", ".branchtargets",
    ".callprototype", "<", ">", ".maxntid 4", "\n", " ", "//c\n", "/*c*/", ".extern", ".visible",
    "\x01", "\x020", "= {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21};",
]


def test_placeholder_characters_in_input_are_errors():
    head = ".version 9.0\n.target sm_75\n.address_size 64\n"
    for text in (head + ".entry k() {\n\x01\n}\n", head + ".global .u32 x[2] = \x020;\n"):
        try:
            parse_ptx(text, "fuzz.ptx")
        except PtxError as exc:
            assert "unexpected character" in str(exc)
        else:
            raise AssertionError("placeholder accepted")


def _check(text: str) -> None:
    try:
        parse_ptx(text, "fuzz.ptx")
    except PtxError as exc:
        assert str(exc).startswith("fuzz.ptx:")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_random_text_raises_only_ptx_error(text):
    _check(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=60))
def test_random_token_soup_raises_only_ptx_error(tokens):
    _check(" ".join(tokens))


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=len(SAMPLE)))
def test_truncated_ptx_raises_only_ptx_error(cut):
    _check(SAMPLE[:cut])


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=len(SAMPLE) - 1), st.sampled_from(TOKENS))
def test_mutated_ptx_raises_only_ptx_error(pos, tok):
    _check(SAMPLE[:pos] + tok + SAMPLE[pos:])


def test_integer_literal_with_digits_outside_its_base_is_a_ptx_error():
    """An octal literal with an 8 or 9 (``017128``, ``08``) is no PTX integer: a PtxError naming
    the place, never a ValueError (found by the mutation test above)."""
    head = ".version 9.0\n.target sm_75\n.address_size 64\n"
    for lit in ("017128", "08"):
        text = head + f".visible .entry k() {{\n.reg .b32 %r<2>;\nmov.u32 %r1, {lit};\nret;\n}}\n"
        try:
            parse_ptx(text, "fuzz.ptx")
        except PtxError as exc:
            assert str(exc).startswith("fuzz.ptx:6:"), str(exc)
        else:
            raise AssertionError(f"{lit} accepted")
