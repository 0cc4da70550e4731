#!/usr/bin/env bash
# Makes `nvcc` (CUDA 13.0, the compiler the reference figures were made with) available on a
# machine that lacks it, from NVIDIA's PyPI wheels.  Prints the directory to put on PATH.
set -euo pipefail
if command -v nvcc >/dev/null 2>&1; then dirname "$(command -v nvcc)"; exit 0; fi
prefix="${GPGPUSIM_CUDA_PREFIX:-$HOME/.cache/gpgpusim/cuda13}"
top="$prefix/nvidia/cu13"
if [ ! -x "$top/bin/nvcc" ]; then
  python3 -m pip install -q --no-deps --target "$prefix" \
    "nvidia-cuda-nvcc==13.0.*" "nvidia-cuda-runtime==13.0.*" "nvidia-cuda-crt==13.0.*" \
    "nvidia-cuda-cccl==13.0.*" "nvidia-nvvm==13.0.*" >&2
  # nvcc.profile links from lib64/ and wants the unversioned libcudart.so.
  mkdir -p "$top/lib64"
  for f in "$top"/lib/*; do ln -sf "$f" "$top/lib64/"; done
  ln -sf "$top/lib/libcudart.so.13" "$top/lib64/libcudart.so"
fi
echo "$top/bin"
