"""SASS (sm_75 / sm_86, as nvdisasm prints it) to PTXPlus text (checklist C007, C009, C232-C238).

GPGPU-Sim's PTXPlus is PTX whose registers, predicates and addressing follow the native ISA so
that the functional engine runs what the hardware runs.  Upstream only converted sm_1x; this
converter takes the Turing/Ampere SASS of :mod:`cuobjdump_tools.sass` and writes text that the
lark PTX front end parses unchanged and the functional engine runs like any PTX.

Conventions of the text (what a reader of a ``-gpgpu_ptx_save_converted_ptxplus`` file sees):

* **Registers** (C233): SASS ``R<n>`` is ``%r<n>`` (``.b32``), uniform ``UR<n>`` is ``%ur<n>``,
  predicates ``P<n>``/``UP<n>`` are ``%p<n>``/``%up<n>``.  ``RZ``/``URZ`` read as ``0``; a write to
  them goes to the sink ``%rz``; ``PT`` reads as true (folded where it combines with another
  predicate, else the register ``%pt``, set once at entry), a write to ``PT`` goes to ``%pz``.
  Uniform registers hold the same value in every lane, so per-lane registers are exact.
* **64-bit values** live in register pairs (``R4`` low, ``R5`` high) as on the hardware:
  ``mov.b64 %d0, {%r4, %r5}`` gathers a pair, ``mov.b64 {%r4, %r5}, %d0`` scatters one.  Work
  registers ``%t<n>`` (``.b32``), ``%d<n>`` (``.b64``) and ``%q<n>`` (``.pred``) hold values
  inside one SASS instruction's expansion only.
* **Constant banks** (C234): each value an instruction reads is read once per thread, at the
  kernel's entry, into a register of its own (``%k<n>``, pairs ``%kd<n>``; banks do not change
  during a launch).  ``c[0x0][x]`` reads the launch's values: ``0x0-0x8`` ``%ntid``,
  ``0xc-0x14`` ``%nctaid``, ``0x28`` the local-memory stack top (the frame size, or 1 KiB,
  CUDA's default stack limit, for a kernel that calls subroutines: ``R1`` then addresses the
  ``.local`` array ``__sass_frame``), ``0x20`` (64-bit) the generic address of
  local address 0 (the engine's local window, so ``R1 + c[0x0][0x20]`` is a generic pointer
  into the stack that ``LD``/``ST`` resolve), ``0x118`` the global-memory descriptor
  (0: ``desc[UR][...]`` operands are not modelled), and from the kernel's parameter offset
  (``EIATTR_PARAM_CBANK``, 0x160) its parameters through ``ld.param`` of the PTX entry's own
  parameter names; ``0x8c``/``0x90`` hold the grid-sync workspace of a cooperative launch
  (``%envreg1``/``%envreg2``).  ``c[0x3][x]`` (``__constant__`` variables) reads the module's
  ``.const`` variable at that offset of the cubin's ``.nv.constant3``; ``c[0x2][x]`` (literals ptxas placed in ``.nv.constant2``) reads the cubin's bytes, and
  ``c[0x4][x]`` (addresses of ``__device__`` variables, relocated ``R_CUDA_64`` entries of
  ``.nv.constant4``) the variable's address (``mov.u64 %d, symbol``).
* **Memory** (C235): ``[R<n>]`` of ``LDG``/``STG``/``RED``/``ATOM`` (``.E``) and ``[R<n>.64]``
  are 64-bit addresses held in a pair, ``[UR<n>]`` in a uniform pair, and ``[R<n>.64+UR<m>]``
  the sum of the two pairs; ``LDS``/``STS``/``ATOMS`` take 32-bit offsets in the CTA's
  shared memory, which the text declares as ``__sass_shared`` at offset 0 (static bytes from
  ``.nv.shared.<kernel>``, dynamic shared memory after it); ``.X4``/``.X8``/``.X16`` scale.
* **Guards** (C236): ``@P0 OP`` puts ``@%p0`` on every line of the expansion that writes a SASS
  register, predicate or memory or changes control flow; work-register lines run unguarded,
  before them, so a guard predicate the instruction overwrites is read first.
* **Control flow and reconvergence** (C237, C238): ``BRA``/``EXIT`` become ``bra``/``exit``
  with labels ``$L<offset>``.  Reconvergence is GPGPU-Sim's PTXPlus choice: the SIMT stack
  reconverges at each branch's immediate post-dominator, computed by
  :mod:`gpgpusim.ptx.cfg` on the converted text exactly as for PTX.  The convergence barriers
  (``BSSY``/``BSYNC``, ``BMOV``, ``WARPSYNC``) do nothing (a placeholder line each, counted and
  issued, see below): in the structured code nvcc emits a
  ``BSSY``'s target is the post-dominator of the branches it guards, so both give the same
  reconvergence points, and post-dominators need no barrier registers in the engine.
  ``CALL.REL`` (a subroutine in the kernel's own code) is a branch to its label and
  ``RET.REL Rn`` a branch back to the call site whose offset Rn holds (nvcc loads the return
  offset into Rn before the call), so calls, recursion included, reconverge like any branch;
  ``CALL.ABS`` of CUDA's device runtime (``vprintf``, ``malloc``, ``free``, ``__assertfail``,
  and the device-side launch calls ``__cudaCDP2GetParameterBufferV2`` /
  ``__cudaCDP2LaunchDeviceV2`` of dynamic parallelism, C078-C091) becomes a PTX ``call`` of
  that function with the ABI's argument registers.  A relocated half of a function's address
  (``UMOV UR4, 32@lo(child)``, the kernel a device-side launch starts) reads as that half of
  the function's handle in the engine (``loader.function_handle``).

Counting and timing (issue 27): one SASS instruction is one warp instruction.  Its expansion
(the comment line ``// <SASS text>`` and the lines after it) has one **main line**, marked
``//@main``: the line that accesses memory or changes control flow (``ld``/``st``/``atom``/
``red``/``tex``/``bra``/``exit``/``bar``/``shfl``/...), else the last guarded line (the one
writing the SASS destination), else the last work line (``ld.param``/``st.param``, a call's
argument passing, are no memory access: a device-launch ``CALL.ABS``'s main line is its
``call``); for ``RET`` and the other ``CALL`` forms (which branch away from several lines) the
first line.  A SASS instruction without lines (``BSSY``,
``BSYNC``, ``WARPSYNC``, ``NOP``, ``DEPBAR``, one guarded by ``!PT``) becomes the placeholder
``pmevent 0;`` so that it is issued and counted as on the hardware.  Every line runs; only main
lines are counted (warp and thread instructions, line statistics) and issued by the timing
model, the others (**helper lines**) run with them and take no issue slot.  A SASS instruction's
thread count is the lanes for which its guard holds: a branch whose PTX guard combines the SASS
guard with another predicate (``@P0 BRA P1``, ``BRA.DIV``) names the SASS guard in its mark
(``//@main @%p0``; ``@all``: unguarded, every active lane), and the count follows that
(:mod:`gpgpusim.ptxplus.marks`, :mod:`gpgpusim.timing.sass_ops`).

The semantics are inferred (NVIDIA documents SASS opcodes by name only) from how nvcc 13 uses
each form, and ``tests/ptxplus/test_semantics.py`` pins them at their edges.  An opcode,
modifier or operand form this converter does not handle raises :class:`UnsupportedSass`
naming it: nothing unhandled runs.

The package: ``base`` (constants, operands, the expansion of one instruction and its main line,
:class:`Converter`, the handler registry), and the handlers by family: ``control`` (branches,
calls, exits, barriers, warp-level), ``integer`` (moves, special registers, constant loads,
integer arithmetic and predicates), ``floating`` (FP32, conversions, FP64, FP16 pairs) and
``memory`` (addressing, loads, stores, atomics, textures, surfaces, tensor cores).
"""

from __future__ import annotations

from cuobjdump_tools.sass import SassFunction

from . import control, floating, integer, memory  # noqa: F401 - each registers its handlers
from .base import (BUILTINS, CDP_CALLS, MAIN_MARK, MAIN_OPCODES, PLACEHOLDER, Converter, KernelContext, Opnd, ParamSlot,
                   UnsupportedSass, _HANDLERS, parse_operand)

__all__ = ["BUILTINS", "CDP_CALLS", "MAIN_MARK", "MAIN_OPCODES", "PLACEHOLDER", "Converter", "KernelContext", "Opnd",
           "ParamSlot", "UnsupportedSass", "convert_kernel", "parse_operand", "supported_opcodes"]


def supported_opcodes() -> list[str]:
    """The SASS opcodes with a handler (each also checks its modifiers and operand forms)."""
    return sorted(_HANDLERS)


def convert_kernel(fn: SassFunction, ctx: KernelContext) -> str:
    """The PTXPlus ``.entry`` text of kernel ``fn``.  Raises :class:`UnsupportedSass`."""
    return Converter(fn, ctx).convert()
