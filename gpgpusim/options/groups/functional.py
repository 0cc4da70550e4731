"""Options of GPGPU-Sim's binary loading, checkpointing, PTXPlus and debug (declarations, in option-dump order).

Each entry: GPGPU-Sim name, Python name, type, default (as the C++ default string), description
(text exactly as GPGPU-Sim 4.2 prints it in its option dump, so the dump compares equal).
Checklist: C195, C209.
"""

from __future__ import annotations

from ..registry import Legacy, Opt

OPTIONS = [
    Opt("gpgpu_ptx_use_cuobjdump", "ptx_use_cuobjdump", "bool", "1",
        "Use cuobjdump to extract ptx and sass from binaries"),
    Opt("gpgpu_experimental_lib_support", "experimental_lib_support", "bool", "0",
        "Try to extract code from cuda libraries [Broken because of unknown cudaGetExportTable]"),
    Opt("checkpoint_option", "checkpoint_option", "int", "0",
        " checkpointing flag (0 = no checkpoint)"),
    Opt("checkpoint_kernel", "checkpoint_kernel", "int", "1",
        " checkpointing during execution of which kernel (1- 1st kernel)"),
    Opt("checkpoint_CTA", "checkpoint_cta", "int", "0",
        " checkpointing after # of CTA (< less than total CTA)"),
    Opt("resume_option", "resume_option", "int", "0",
        " resume flag (0 = no resume)"),
    Opt("resume_kernel", "resume_kernel", "int", "0",
        " Resume from which kernel (1= 1st kernel)"),
    Opt("resume_CTA", "resume_cta", "int", "0",
        " resume from which CTA "),
    Opt("checkpoint_CTA_t", "checkpoint_cta_t", "int", "0",
        " resume from which CTA "),
    Opt("checkpoint_insn_Y", "checkpoint_insn_y", "int", "0",
        " resume from which CTA "),
    Opt("gpgpu_ptx_convert_to_ptxplus", "ptx_convert_to_ptxplus", "bool", "0",
        "Convert SASS (native ISA) to ptxplus and run ptxplus"),
    Opt("gpgpu_ptx_force_max_capability", "ptx_force_max_capability", "uint", "0",
        "Force maximum compute capability"),
    Opt("gpgpu_ptx_inst_debug_to_file", "ptx_inst_debug_to_file", "bool", "0",
        "Dump executed instructions' debug information to file"),
    Opt("gpgpu_ptx_inst_debug_file", "ptx_inst_debug_file", "str", "inst_debug.txt",
        "Executed instructions' debug output file"),
    Opt("gpgpu_ptx_inst_debug_thread_uid", "ptx_inst_debug_thread_uid", "int", "1",
        "Thread UID for executed instructions' debug output"),
]

# Options of this simulator that GPGPU-Sim does not have: accepted wherever GPGPU-Sim options are
# (config files, --set, $GPGPUSIM_OPTIONS), kept out of the option dump so that it still matches
# GPGPU-Sim's line for line (registered like the legacy options, see registry.EXTENSIONS).
EXTENSIONS = [
    Legacy("gpgpusim_memcheck", "memcheck", "0",
           "report every device access outside a live allocation as compute-sanitizer's memcheck "
           "does (0 = off, 1 = report and continue, 2 = report and stop with cudaErrorIllegalAddress)",
           "int"),
    Legacy("gpgpusim_memcheck_print_limit", "memcheck_print_limit", "100",
           "memcheck prints at most this many reports (0 = no limit); the error summary counts all",
           "int"),
    Legacy("gpgpusim_memcheck_error_exitcode", "memcheck_error_exitcode", "1",
           "exit status of an application in which memcheck reported errors (as compute-sanitizer's "
           "--error-exitcode; 0 = the application's own)", "int"),
    Legacy("gpgpusim_ptxplus_fallback", "ptxplus_fallback", "0",
           "PTXPlus mode (-gpgpu_ptx_convert_to_ptxplus 1): a kernel whose SASS uses an opcode the "
           "converter does not handle runs its PTX (1, with one line saying so) instead of failing "
           "its launch with cudaErrorNotSupported (0)", "int"),
    Legacy("functional_step_limit", "functional_step_limit", "50000000",
           "functional engine watchdog: a kernel (chunk of CTAs) that takes more issue steps than this "
           "ends with cudaErrorLaunchTimeout (an infinite loop); one step issues one instruction for "
           "every warp at the same pc", "int"),
    Legacy("gpgpusim_timing_feed", "timing_feed", "auto",
           "performance mode's instruction feed: auto (live for kernels whose values can depend on "
           "timing -- used atomic results, volatile loads, %clock/%smid/%warpid, grid sync -- trace "
           "for the rest), trace (replay the batched functional engine's record), live (execute "
           "each warp instruction when it issues, GPGPU-Sim's own model)", "str"),
    Legacy("gpgpusim_feed_window", "feed_window", "64",
           "trace feed: warp instructions the functional engine may run ahead of the timing model, "
           "per warp (bounds the trace held in memory; 0 = record each chunk of CTAs whole before "
           "timing it)", "int"),
    # sampled performance simulation (timing/kernel_sampling.py)
    Legacy("gpgpusim_sampling", "sampling", "off",
           "sampled performance simulation: off (every launch in detail), kernel (launches that repeat "
           "-- same kernel, grid and block, similar instruction count and mix -- are simulated in "
           "detail until their cycles per instruction are known within -gpgpusim_sampling_tol, the "
           "rest run functionally and their cycles and counters are projected, marked as such), "
           "cta (the waves of a grid of >= 6 waves likewise, until the throughput is known, and a grid "
           "of one wave or of 3 to 15 waves inside its first wave: -gpgpusim_sampling_cta_interval), all "
           "(both)", "str"),
    Legacy("gpgpusim_sampling_cta_tail", "sampling_cta_tail", "drain",
           "CTA sampling: how a sampled kernel's tail is timed: drain (the CTAs in flight when "
           "sampling stops issue drain in detail and stand for it) or detail (the middle CTAs run "
           "functionally and the last partial wave plus one full wave are simulated)", "str"),
    Legacy("gpgpusim_sampling_cta_interval", "sampling_cta_interval", "auto",
           "CTA sampling inside the first wave for grids of up to 15 waves: the launch is cut once "
           "its rate is known within -gpgpusim_sampling_tol and the rest is projected by a model "
           "of the SMs shared by their CTAs.  auto (the default): only launches of one wave or of at "
           "least 3 waves that pass a screening run on the functional engine (CTAs of equal work, later "
           "CTAs sharing data with earlier ones no more than the first wave's do; the cut waits until "
           "what a CTA has left runs the instructions the measured part ran, in like proportions, and "
           "comes back to data it touched before no more often; a grid of one wave also needs its "
           "CTAs to share their SMs evenly at the cut); 1 = every such "
           "launch, unscreened; "
           "0 = off", "str"),
    Legacy("gpgpusim_sampling_tol", "sampling_tol", "0.02",
           "kernel sampling: a group is projected once the 95% confidence interval of its mean "
           "cycles per instruction, times its instructions, is within this fraction of the cycles "
           "it projects (-gpgpusim_sampling_tol_of)", "float"),
    Legacy("gpgpusim_sampling_tol_of", "sampling_tol_of", "cycles",
           "kernel sampling: what -gpgpusim_sampling_tol is a fraction of: cycles = the cycles a "
           "launch is projected to take, its launch latency (-gpgpu_kernel_launch_latency) "
           "included; work = the cycles less that latency (the mean cycles per instruction alone)",
           "str"),
    Legacy("gpgpusim_sampling_min", "sampling_min", "4",
           "kernel sampling: launches of a group simulated in detail before any is projected", "int"),
    Legacy("gpgpusim_sampling_pool", "sampling_pool", "2",
           "kernel sampling: a group started once other groups of its kernel and launch shape "
           "have two or more detailed launches pools its spread of cycles per instruction with "
           "theirs and is projected after this many detailed launches (at least 2: the first is "
           "a warm-up) once its mean is known within -gpgpusim_sampling_tol; 0 = every group "
           "takes -gpgpusim_sampling_min and its own spread alone", "int"),
    Legacy("gpgpusim_sampling_similar", "sampling_similar", "0.1",
           "kernel sampling: launches group together when their warp instruction counts are within "
           "this fraction and their instruction mixes within half of it (total variation)", "float"),
    Legacy("gpgpusim_sampling_line", "sampling_line", "1",
           "kernel sampling: a launch that falls in no converged group, but near three or more "
           "converged groups of its kernel and launch shape, is projected from a line fitted "
           "through them (cycles against thread instructions) when the line is known there within "
           "-gpgpusim_sampling_tol (1); 0 = such a launch forms a group of its own", "int"),
    Legacy("gpgpusim_sampling_full_stats", "sampling_full_stats", "0",
           "kernel sampling: a projected launch's statistics block and -o JSON record hold every "
           "counter, the per-unit sections (per-core L1, per-bank L2, per-channel DRAM, "
           "interconnect) included, as for a detailed launch (1); 0 = only the counters the "
           "projection produces (a compact block: the kernel lines and the projected scalar "
           "counters)", "int"),
    # narrowing of GPGPU-Sim's -trace_* event trace, and pipeline dumps (timing/trace.py)
    Legacy("gpgpusim_trace_kernel", "trace_kernel", "all",
           "trace only these kernels: comma-separated launch numbers (kernel_launch_uid, 1 = first "
           "launch) or kernel names (mangled or bare); all = every kernel", "str"),
    Legacy("gpgpusim_trace_warp", "trace_warp", "-1",
           "trace only this hardware warp slot (of the -trace_sampling_core SM); -1 = every warp", "int"),
    Legacy("gpgpusim_trace_cycles", "trace_cycles", "all",
           "trace only core cycles START:END (inclusive; START: or START = to the end); all = every cycle",
           "str"),
    Legacy("gpgpusim_trace_file", "trace_file", "stderr",
           "where trace lines and pipeline dumps go: stderr, stdout or a file path", "str"),
    Legacy("gpgpusim_dump_pipeline", "dump_pipeline", "none",
           "print the state of the pipeline (SMs and memory system) after core cycle CYCLE: "
           "CYCLE[+EVERY][:SM][,...] (+EVERY repeats every EVERY cycles; SM -1 or none = every SM); "
           "none = never", "str"),
]
