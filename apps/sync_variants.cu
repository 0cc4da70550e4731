// sync_variants: barrier flavours and memory ordering inside a block: __syncthreads_count,
// __syncthreads_and, __syncthreads_or (bar.red), __syncwarp with a partial mask, a hand-off
// across warps through shared memory (__threadfence_block, barrier, volatile read), and the
// last-block-done pattern (__threadfence + atomicInc ticket on a global counter) in which the
// final block sums every block's partial. Exact compare.
#include <vector>
#include "check.h"

#define THREADS 128

__device__ unsigned blocksDone = 0;

__global__ void syncs(const int *in, int *out, int *partials, int *total, int n) {
  __shared__ int buf[THREADS];
  __shared__ bool amLast;
  int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  int v = g < n ? in[g] : 0;
  int cnt = __syncthreads_count(v > 0);
  int all = __syncthreads_and(v > -1000);
  int any = __syncthreads_or(v == 13);
  buf[t] = v;
  __threadfence_block();
  __syncthreads();
  volatile int *vb = buf;
  int neighbour = vb[(t + 32) % THREADS];  // a value written by another warp
  int lanes = 0;
  if ((t & 31) < 16) {
    __syncwarp(0x0000ffffu);  // the lower half-warp only
    lanes = __popc(__ballot_sync(0x0000ffffu, v & 1));
  }
  if (g < n) {
    out[4 * g + 0] = cnt;
    out[4 * g + 1] = all * 2 + any;
    out[4 * g + 2] = neighbour;
    out[4 * g + 3] = lanes;
  }
  // block partial sum, then the last block to finish adds up every partial
  int s = __syncthreads_count(0);  // also a barrier: everyone has written buf
  (void)s;
  if (t == 0) {
    int sum = 0;
    for (int k = 0; k < THREADS; k++) sum += buf[k];
    partials[blockIdx.x] = sum;
    __threadfence();
    unsigned ticket = atomicInc(&blocksDone, gridDim.x);
    amLast = (ticket == gridDim.x - 1);
  }
  __syncthreads();
  if (amLast && t == 0) {
    int sum = 0;
    for (int b = 0; b < (int)gridDim.x; b++) sum += ((volatile int *)partials)[b];
    *total = sum;
  }
}

int main() {
  const int blocks = 5, n = blocks * THREADS - 37;
  std::vector<int> in(n), out(4 * n);
  for (int i = 0; i < n; i++) in[i] = (i * 53) % 29 - 9;
  int *din, *dout, *dpart, *dtotal;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, 4 * n * sizeof(int)));
  CHECK(cudaMalloc(&dpart, blocks * sizeof(int)));
  CHECK(cudaMalloc(&dtotal, sizeof(int)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  syncs<<<blocks, THREADS>>>(din, dout, dpart, dtotal, n);
  CHECK_LAUNCH();
  int total = 0;
  unsigned done = 0;
  CHECK(cudaMemcpy(out.data(), dout, 4 * n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&total, dtotal, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpyFromSymbol(&done, blocksDone, sizeof(done)));
  int bad = 0, refTotal = 0;
  for (int i = 0; i < n; i++) refTotal += in[i];
  for (int g = 0; g < n; g++) {
    int b0 = g / THREADS * THREADS, t = g % THREADS;
    int cnt = 0, all = 1, any = 0;
    for (int k = 0; k < THREADS; k++) {
      int v = b0 + k < n ? in[b0 + k] : 0;
      cnt += v > 0;
      all &= v > -1000;
      any |= v == 13;
    }
    int nb = b0 + (t + 32) % THREADS;
    int neighbour = nb < n ? in[nb] : 0;
    int lanes = 0;
    if ((t & 31) < 16) {
      int w0 = g - (t & 31);
      for (int l = 0; l < 16; l++) lanes += (w0 + l < n) ? (in[w0 + l] & 1) : 0;
    }
    int ref[4] = {cnt, all * 2 + any, neighbour, lanes};
    for (int k = 0; k < 4; k++) {
      if (out[4 * g + k] != ref[k]) {
        if (bad < 8) printf("thread %d field %d: %d != %d\n", g, k, out[4 * g + k], ref[k]);
        bad++;
      }
    }
  }
  if (total != refTotal || done != (unsigned)blocks) {  // atomicInc(p, blocks) stops at blocks here
    printf("total %d (ref %d), blocksDone %u\n", total, refTotal, done);
    bad++;
  }
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dpart));
  CHECK(cudaFree(dtotal));
  return report("sync_variants", bad);
}
