#!/bin/sh
# Regenerate the PTX fixtures with nvcc 13 (run from this directory).
set -e
REF=$(cd "$(dirname "$0")/../../../.." && pwd)/shared/reference/programs
for f in atomics bank_conflict divergence dp_local fma_loop matmul reduce sfu stream strided vectoradd; do
    nvcc -ptx -O2 "$REF/$f.cu" -o "$f.ptx"
done
nvcc -ptx -O2 -lineinfo "$REF/matmul.cu" -o matmul_lineinfo.ptx
nvcc -ptx -O2 src/snip1.cu -o snip1.ptx
nvcc -ptx -O2 -arch=sm_90 src/snip1.cu -o snip1_sm90.ptx
nvcc -ptx -G src/snip1.cu -o snip1_G.ptx
nvcc -ptx -O2 src/snip2.cu -o snip2.ptx
nvcc -ptx -O2 -arch=sm_80 src/snip2.cu -o snip2_sm80.ptx
nvcc -ptx -O2 src/snip3.cu -o snip3.ptx
nvcc -ptx -O2 -arch=sm_90 src/snip4.cu -o snip4_sm90.ptx
nvcc -ptx -O2 src/snip5.cu -o snip5.ptx
