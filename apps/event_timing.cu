// event_timing: cudaEventRecord before and after a kernel, cudaEventSynchronize on the
// stop event, cudaEventElapsedTime must be > 0 (and finite). cudaEventQuery on a completed
// event returns cudaSuccess; the kernel's result is checked too.
#include <cmath>
#include "check.h"

__global__ void busy(unsigned *out, int iters) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < iters; k++) x = x * 1664525u + 1013904223u;
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

int main() {
  const int threads = 256, blocks = 4, iters = 64;
  unsigned *dout;
  CHECK(cudaMalloc(&dout, threads * blocks * sizeof(unsigned)));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, 0));
  busy<<<blocks, threads>>>(dout, iters);
  CHECK_LAUNCH();
  CHECK(cudaEventRecord(stop, 0));
  CHECK(cudaEventSynchronize(stop));
  CHECK(cudaEventQuery(stop));
  CHECK(cudaEventQuery(start));
  float ms = -1.0f;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  int bad = 0;
  if (!(ms > 0.0f) || !std::isfinite(ms)) {
    printf("elapsed time %f ms is not positive\n", ms);
    bad++;
  }
  unsigned out[threads * blocks];
  CHECK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
  for (int i = 0; i < threads * blocks; i++) {
    unsigned x = i;
    for (int k = 0; k < iters; k++) x = x * 1664525u + 1013904223u;
    bad += (out[i] != x);
  }
  printf("kernel time > 0: %s\n", ms > 0.0f ? "yes" : "no");
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaFree(dout));
  return report("event_timing", bad);
}
