// coop_groups: cooperative groups without grid synchronisation: thread_block sync,
// tiled_partition<16> and <4> with tile-level shfl_down reductions and tile.sync(),
// coalesced_threads() inside a divergent branch (its size and thread_rank), and
// cg::reduce over a 32-thread tile. Exact compare.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <vector>
#include "check.h"

namespace cg = cooperative_groups;

__global__ void groups(const int *in, int *out) {
  cg::thread_block block = cg::this_thread_block();
  int t = block.thread_rank();
  int g = blockIdx.x * blockDim.x + t;
  int v = in[g];

  cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
  int s16 = v;
  for (int off = 8; off > 0; off >>= 1) s16 += t16.shfl_down(s16, off);
  s16 = t16.shfl(s16, 0);

  cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(block);
  int m4 = v;
  for (int off = 2; off > 0; off >>= 1) m4 = max(m4, t4.shfl_xor(m4, off));

  cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(block);
  int s32 = cg::reduce(t32, v, cg::plus<int>());

  int rank = -1, size = -1;
  if (v % 3 == 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    rank = active.thread_rank();
    size = active.size();
  }
  block.sync();
  out[5 * g + 0] = s16;
  out[5 * g + 1] = m4;
  out[5 * g + 2] = s32;
  out[5 * g + 3] = rank;
  out[5 * g + 4] = size;
}

int main() {
  const int blocks = 2, threads = 64, n = blocks * threads;
  std::vector<int> in(n), out(5 * n);
  for (int i = 0; i < n; i++) in[i] = (i * 29 + 5) % 41;
  int *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, 5 * n * sizeof(int)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  groups<<<blocks, threads>>>(din, dout);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, 5 * n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int g = 0; g < n; g++) {
    int b16 = g / 16 * 16, b4 = g / 4 * 4, b32 = g / 32 * 32;
    int s16 = 0, m4 = 0, s32 = 0, rank = -1, size = -1;
    for (int k = 0; k < 16; k++) s16 += in[b16 + k];
    for (int k = 0; k < 4; k++) m4 = in[b4 + k] > m4 ? in[b4 + k] : m4;
    for (int k = 0; k < 32; k++) s32 += in[b32 + k];
    if (in[g] % 3 == 0) {
      rank = size = 0;
      for (int k = 0; k < 32; k++) {
        if (in[b32 + k] % 3 == 0) {
          if (b32 + k < g) rank++;
          size++;
        }
      }
    }
    int ref[5] = {s16, m4, s32, rank, size};
    for (int k = 0; k < 5; k++) {
      if (out[5 * g + k] != ref[k]) {
        if (bad < 8) printf("thread %d field %d: %d != %d\n", g, k, out[5 * g + k], ref[k]);
        bad++;
      }
    }
  }
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  return report("coop_groups", bad);
}
