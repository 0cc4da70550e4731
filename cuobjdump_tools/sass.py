"""SASS (the native ISA) of a cubin, decoded by NVIDIA's ``nvdisasm`` into instruction records.

GPGPU-Sim counterpart: the ``cuobjdump -sass`` run of ``extract_code_using_cuobjdump`` whose
text ``cuobjdump_to_ptxplus`` reads (checklist C007, C009, C232).  CUDA 13 ships no
``cuobjdump`` we can rely on, and the instruction encodings of sm_75+ are undocumented, so the
decoder is ``nvdisasm`` from NVIDIA's ``nvidia-cuda-nvdisasm`` PyPI wheel (the package's
optional ``sass`` extra), run on the cubin bytes that :mod:`cuobjdump_tools.fatbin` extracted
in process.  ``nvdisasm -json`` prints one record per instruction (``predicate``, ``opcode``
with its dot-separated modifiers, ``operands`` as one comma-separated string) per function;
instructions of sm_70 and newer are 16 bytes each, so an instruction's offset in its function
is 16 times its index.

Where nvdisasm is looked for: ``$GPGPUSIM_NVDISASM``, then ``nvdisasm`` on ``PATH``, then the
installed wheel (``nvidia/cu13/bin/nvdisasm``; older wheels used ``nvidia/cuda_nvdisasm/bin``).

Every failure (no nvdisasm, a cubin that is not an ELF, a truncated or corrupt cubin that
nvdisasm rejects or crashes on, output we cannot read) raises :class:`SassError`, a
``cudaErrorInvalidKernelImage`` with a one-line message; :class:`NvdisasmMissing` (a subclass)
says how to install the decoder.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from gpgpusim.errors import CudaError, Err

INSTALL_HINT = ("SASS decoding needs NVIDIA's nvdisasm: python3 -m pip install nvidia-cuda-nvdisasm "
                "(or pip install 'gpgpusim[sass]'), or set GPGPUSIM_NVDISASM to its path")
INSTRUCTION_BYTES = 16  # sm_70 and newer
NVDISASM_TIMEOUT_S = 120


class SassError(CudaError):
    """The SASS cannot be had: ``cudaErrorInvalidKernelImage`` with a one-line reason."""

    def __init__(self, message: str) -> None:
        super().__init__(Err.InvalidKernelImage, message)


class NvdisasmMissing(SassError):
    """No nvdisasm was found; the message says how to install it."""

    def __init__(self) -> None:
        super().__init__(INSTALL_HINT)


@dataclass(frozen=True)
class SassInstruction:
    """One SASS instruction as nvdisasm prints it.

    ``pred`` is the guard without ``@`` ("" when unguarded, e.g. "P0", "!P0", "UP1");
    ``opcode`` the base name ("IMAD"); ``modifiers`` the dot-separated rest ("WIDE", "U32");
    ``operands`` split at top-level commas, each as printed ("R4", "c[0x0][0x160]", "[R2.64+0x4]").
    """

    offset: int
    pred: str
    opcode: str
    modifiers: tuple[str, ...]
    operands: tuple[str, ...]

    @property
    def full_opcode(self) -> str:
        return ".".join((self.opcode, *self.modifiers))

    def __str__(self) -> str:
        guard = f"@{self.pred} " if self.pred else ""
        ops = " " + ", ".join(self.operands) if self.operands else ""
        return f"{guard}{self.full_opcode}{ops} ;"


@dataclass
class SassFunction:
    """One function (kernel or device function) of a cubin."""

    name: str
    start: int = 0
    length: int = 0
    instructions: list[SassInstruction] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)   # code labels (CALL targets) -> offset


@dataclass
class SassListing:
    """The decoded code of one cubin."""

    arch: int
    functions: dict[str, SassFunction] = field(default_factory=dict)
    producer: str = ""


def find_nvdisasm() -> str | None:
    """Path of the nvdisasm to use, or None (see the module docstring for the search order)."""
    env = os.environ.get("GPGPUSIM_NVDISASM", "").strip()
    if env:
        return env if os.access(env, os.X_OK) else None
    on_path = shutil.which("nvdisasm")
    if on_path:
        return on_path
    try:
        import nvidia  # namespace package of NVIDIA's CUDA wheels
    except ImportError:
        return None
    for root in getattr(nvidia, "__path__", []):
        for rel in ("cu13/bin/nvdisasm", "cuda_nvdisasm/bin/nvdisasm", "cu12/bin/nvdisasm"):
            p = Path(root) / rel
            if p.is_file() and os.access(p, os.X_OK):
                return str(p)
    return None


def split_operands(text: str) -> tuple[str, ...]:
    """Split nvdisasm's operand string at commas outside brackets and braces."""
    out: list[str] = []
    depth = 0
    cur: list[str] = []
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    last = "".join(cur).strip()
    if last or out:
        out.append(last)
    return tuple(o for o in out if o)


def parse_nvdisasm_json(text: str, arch: int = 0) -> SassListing:
    """The :class:`SassListing` in ``nvdisasm -json`` output; malformed output is a SassError."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise SassError(f"nvdisasm printed no readable JSON ({exc})") from None
    if not (isinstance(doc, list) and len(doc) >= 2 and isinstance(doc[0], dict) and isinstance(doc[1], list)):
        raise SassError("nvdisasm JSON: expected [header, [functions...]]")
    head = doc[0]
    sm = head.get("SM", {}).get("version", {}) if isinstance(head.get("SM"), dict) else {}
    if isinstance(sm, dict) and "major" in sm:
        try:
            arch = int(sm["major"]) * 10 + int(sm.get("minor", 0))
        except (TypeError, ValueError):
            raise SassError(f"nvdisasm JSON: bad SM version {sm!r}") from None
    listing = SassListing(arch=arch, producer=str(head.get("Producer", "")))
    for fn in doc[1]:
        if not isinstance(fn, dict) or not isinstance(fn.get("function-name"), str):
            raise SassError("nvdisasm JSON: a function record without a function-name")
        try:
            start = int(fn.get("start", 0))
            length = int(fn.get("length", 0))
        except (TypeError, ValueError):
            raise SassError(f"nvdisasm JSON: bad start/length in {fn['function-name']}") from None
        f = SassFunction(fn["function-name"], start, length)
        insts = fn.get("sass-instructions", [])
        if not isinstance(insts, list):
            raise SassError(f"nvdisasm JSON: sass-instructions of {f.name} is not a list")
        for i, rec in enumerate(insts):
            if not isinstance(rec, dict) or not isinstance(rec.get("opcode"), str) or not rec["opcode"]:
                raise SassError(f"nvdisasm JSON: instruction {i} of {f.name} has no opcode")
            pred = rec.get("predicate", "")
            operands = rec.get("operands", "")
            if not isinstance(pred, str) or not isinstance(operands, str):
                raise SassError(f"nvdisasm JSON: instruction {i} of {f.name}: bad predicate/operands")
            name, *mods = rec["opcode"].split(".")
            guard = pred.lstrip("@").strip()
            ops = split_operands(operands)
            if guard in ("PR", "UPR"):
                # -json files the predicate-register operand of P2R (`P2R R0, PR, RZ, 0x1`) and
                # R2P (`R2P PR, R0, 0x1`) as the guard: put it back where the text form has it
                ops = (ops[:1] + (guard,) + ops[1:]) if name in ("P2R", "UP2UR") else ((guard,) + ops)
                guard = ""
            f.instructions.append(SassInstruction(
                offset=i * INSTRUCTION_BYTES, pred=guard, opcode=name,
                modifiers=tuple(mods), operands=ops))
        listing.functions[f.name] = f
    return listing


def _check_cubin(cubin: bytes) -> int:
    """The cubin's arch after cheap structural checks (ELF magic, header, section table in range)."""
    from cuobjdump_tools.elfinfo import cubin_arch
    from cuobjdump_tools.fatbin import FatbinError

    data = bytes(cubin)
    if len(data) < 0x40 or data[:4] != b"\x7fELF":
        raise SassError(f"not a cubin: {len(data)} bytes without a 64-byte ELF header")
    try:
        arch = cubin_arch(data)
    except FatbinError as exc:
        raise SassError(f"not a cubin: {exc.message}") from None
    import struct

    e_shoff, = struct.unpack_from("<Q", data, 0x28)
    e_shentsize, e_shnum = struct.unpack_from("<HH", data, 0x3A)
    if e_shnum == 0 or e_shoff + e_shentsize * e_shnum > len(data):
        raise SassError(f"truncated cubin: its section table ({e_shnum} x {e_shentsize} bytes at {e_shoff:#x}) "
                        f"runs past its {len(data)} bytes")
    return arch


def disassemble(cubin: bytes, *, nvdisasm: str | None = None, timeout: float = NVDISASM_TIMEOUT_S) -> SassListing:
    """Decode ``cubin`` (ELF bytes) with nvdisasm.  Raises :class:`SassError` on any failure."""
    arch = _check_cubin(cubin)
    tool = nvdisasm or find_nvdisasm()
    if tool is None:
        raise NvdisasmMissing()
    with tempfile.TemporaryDirectory(prefix="gpgpusim-sass-") as tmp:
        path = os.path.join(tmp, f"code.sm_{arch}.cubin")
        with open(path, "wb") as f:
            f.write(bytes(cubin))
        try:
            r = subprocess.run([tool, "-json", path], capture_output=True, timeout=timeout)
        except OSError as exc:
            raise SassError(f"cannot run nvdisasm ({tool}): {exc.strerror or exc}") from None
        except subprocess.TimeoutExpired:
            raise SassError(f"nvdisasm did not finish within {timeout:g} s") from None
        if r.returncode != 0:
            msg = (r.stderr or r.stdout).decode("utf-8", "replace").strip().splitlines()
            why = msg[0] if msg else (f"killed by signal {-r.returncode}" if r.returncode < 0
                                      else f"exit status {r.returncode}")
            raise SassError(f"nvdisasm rejected the sm_{arch} cubin: {why}")
        listing = parse_nvdisasm_json(r.stdout.decode("utf-8", "replace"), arch)
        try:   # the text form also prints the code labels (CALL targets), which -json omits
            text = subprocess.run([tool, "-c", path], capture_output=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired):
            return listing
    if text.returncode == 0:
        for name, labels in parse_labels(text.stdout.decode("utf-8", "replace")).items():
            if name in listing.functions:
                listing.functions[name].labels = labels
    return listing


_SECTION = re.compile(r"^\s*\.section\s+\.text\.(?P<name>[^,\s]+)")
_LABEL = re.compile(r"^(?P<label>[^\s/][^\s]*):\s*$")
_OFFSET = re.compile(r"^\s*/\*(?P<off>[0-9a-f]{4,})\*/")


def parse_labels(text: str) -> dict[str, dict[str, int]]:
    """``{function: {label: offset}}`` from nvdisasm's text output (``name:`` lines, then the
    ``/*offset*/`` of the next instruction); the labels of CALL targets such as
    ``$kernel$callee`` and ``$__internal_0_$__cuda_sm20_div_u64``."""
    out: dict[str, dict[str, int]] = {}
    cur: dict[str, int] | None = None
    pending: list[str] = []
    for line in text.splitlines():
        m = _SECTION.match(line)
        if m:
            cur = out.setdefault(m["name"], {})
            pending = []
            continue
        if cur is None:
            continue
        m = _LABEL.match(line)
        if m:
            pending.append(m["label"])
            continue
        m = _OFFSET.match(line)
        if m:
            for lb in pending:
                cur[lb] = int(m["off"], 16)
            pending = []
    return out


def format_listing(listing: SassListing) -> str:
    """cuobjdump ``-sass`` style text: ``code for sm_XX``, then each function's instructions."""
    lines = [f"\tcode for sm_{listing.arch}"]
    for fn in listing.functions.values():
        lines.append(f"\t\tFunction : {fn.name}")
        for ins in fn.instructions:
            lines.append(f"        /*{ins.offset:04x}*/{'':19s}{ins}")
        lines.append("\t\t" + "." * 10)
    return "\n".join(lines) + "\n"
