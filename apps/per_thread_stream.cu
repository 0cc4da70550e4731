// per_thread_stream: built with --default-stream per-thread (see the Makefile), so every
// launch, cudaMemcpyAsync(..., 0) and cudaStreamSynchronize(0) goes through the runtime's
// per-thread-default-stream entry points (the _ptsz/_ptds variants). Four host threads each
// fill their own buffer on their own default stream and check it. Exact compare.
#include <thread>
#include <vector>
#include "check.h"

__global__ void scaleIndex(int *d, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = v * i;
}

static void worker(int t, int *mismatches) {
  const int n = 300;
  int *d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  scaleIndex<<<3, 128>>>(d, t + 1, n);
  CHECK_LAUNCH();
  int h[n];
  CHECK(cudaMemcpyAsync(h, d, sizeof(h), cudaMemcpyDeviceToHost, 0));
  CHECK(cudaStreamSynchronize(0));
  int bad = 0;
  for (int i = 0; i < n; i++) bad += (h[i] != (t + 1) * i);
  *mismatches = bad;
  CHECK(cudaFree(d));
}

int main() {
  std::vector<int> res(4, -1);
  std::vector<std::thread> pool;
  for (int t = 0; t < 4; t++) pool.emplace_back(worker, t, &res[t]);
  for (auto &th : pool) th.join();
  int bad = 0;
  for (int t = 0; t < 4; t++) {
    if (res[t] != 0) {
      printf("host thread %d: %d mismatches\n", t, res[t]);
      bad++;
    }
  }
  return report("per_thread_stream", bad);
}
