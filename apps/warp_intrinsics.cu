// warp_intrinsics: warp-level primitives on 3 blocks of 96 threads (3 warps each):
// __ballot_sync, __any_sync, __all_sync,
// __activemask in a divergent branch, __shfl_sync broadcast, __shfl_xor_sync butterfly sum,
// __shfl_up_sync inclusive scan, __popc of the ballot. Exact compare with a CPU model of
// each primitive.
#include <vector>
#include "check.h"

#define THREADS 96

__global__ void warpOps(const int *in, int *out) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = in[g];
  unsigned ballot = __ballot_sync(0xffffffffu, v > 0);
  int any = __any_sync(0xffffffffu, v == 7);
  int all = __all_sync(0xffffffffu, v > -100);
  int bcast = __shfl_sync(0xffffffffu, v, 5);
  int bfly = v;
  for (int m = 16; m > 0; m >>= 1) bfly += __shfl_xor_sync(0xffffffffu, bfly, m);
  int scan = v;
  for (int d = 1; d < 32; d <<= 1) {
    int t = __shfl_up_sync(0xffffffffu, scan, d);
    if (lane >= d) scan += t;
  }
  unsigned active = 0;
  if (v & 1) active = __activemask();  // only the odd-valued lanes are active here
  out[8 * g + 0] = (int)ballot;
  out[8 * g + 1] = __popc(ballot);
  out[8 * g + 2] = any;
  out[8 * g + 3] = all;
  out[8 * g + 4] = bcast;
  out[8 * g + 5] = bfly;
  out[8 * g + 6] = scan;
  out[8 * g + 7] = (int)active;
}

int main() {
  const int blocks = 3, n = blocks * THREADS;
  std::vector<int> in(n), out(8 * n);
  for (int i = 0; i < n; i++) in[i] = ((i * 37 + 11) % 23) - 9;  // contains 7s in some warps only
  int *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, 8 * n * sizeof(int)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  warpOps<<<blocks, THREADS>>>(din, dout);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, 8 * n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int w = 0; w < n / 32; w++) {
    const int *v = &in[32 * w];
    unsigned ballot = 0, oddMask = 0;
    int any = 0, all = 1, sum = 0;
    for (int l = 0; l < 32; l++) {
      if (v[l] > 0) ballot |= 1u << l;
      if (v[l] & 1) oddMask |= 1u << l;
      any |= (v[l] == 7);
      all &= (v[l] > -100);
      sum += v[l];
    }
    int scan = 0;
    for (int l = 0; l < 32; l++) {
      scan += v[l];
      int g = 32 * w + l;
      int ref[8] = {(int)ballot, __builtin_popcount(ballot), any, all, v[5], sum, scan,
                    (v[l] & 1) ? (int)oddMask : 0};
      for (int k = 0; k < 8; k++) {
        if (out[8 * g + k] != ref[k]) {
          if (bad < 8) printf("thread %d field %d: %d != %d\n", g, k, out[8 * g + k], ref[k]);
          bad++;
        }
      }
    }
  }
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  return report("warp_intrinsics", bad);
}
