"""Functional simulation: what every PTX instruction computes (values, addresses, masks).

GPGPU-Sim counterpart: ``src/cuda-sim/`` (checklist C089, C162, C204, C214-C231).

* :mod:`.memory` -- ``GlobalMemory``: device allocations as numpy byte buffers.
* :mod:`.loader` -- ``load_module``: module-scope ``.global``/``.const`` variables.
* :mod:`.decode` / :mod:`.handlers` -- pre-decoding PTX into handlers (once per kernel);
  :mod:`.operands`, :mod:`.mem_insts`, :mod:`.call_insts`, :mod:`.tex_insts`, :mod:`.wmma` --
  operand access and the handlers of memory, call, texture and matrix instructions.
* :mod:`.state` -- ``Exec``: registers, shared/local memory, SIMT stacks, barriers of the CTAs
  executed together.
* :mod:`.engine` -- ``launch`` (batched pure-functional driver or warp driver) and the
  warp-step interface ``CtaState.step(warp) -> StepResult`` for the timing model.
* :mod:`.simt` -- SIMT issue: one instruction for a group of warps or one warp, and the SIMT
  stack moves.
* :mod:`.printf` -- device ``printf`` formatting.
* :mod:`.semantics` -- ALU instruction semantics (``lookup(inst) -> OpSpec``).
"""
