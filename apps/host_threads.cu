// host_threads: four std::thread host threads, each with its own stream, device buffers
// and pinned host buffer: async copy in, a kernel with a per-thread parameter, async copy
// out, cudaStreamSynchronize, then each thread checks its own result. The runtime must be
// safe to call from several host threads at once.
#include <thread>
#include <vector>
#include "check.h"

__global__ void affine(const int *in, int *out, int n, int a, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * in[i] + b;
}

static void worker(int id, int *mismatches) {
  const int n = 700;
  int *host, *din, *dout;
  CHECK(cudaMallocHost(&host, n * sizeof(int)));
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  for (int i = 0; i < n; i++) host[i] = i * (id + 1) - 300;
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaMemcpyAsync(din, host, n * sizeof(int), cudaMemcpyHostToDevice, s));
  affine<<<(n + 127) / 128, 128, 0, s>>>(din, dout, n, id + 2, -id);
  CHECK_LAUNCH();
  CHECK(cudaMemcpyAsync(host, dout, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  int bad = 0;
  for (int i = 0; i < n; i++) bad += (host[i] != (id + 2) * (i * (id + 1) - 300) - id);
  *mismatches = bad;
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  CHECK(cudaFreeHost(host));
}

int main() {
  const int threads = 4;
  std::vector<int> mismatches(threads, -1);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; t++) pool.emplace_back(worker, t, &mismatches[t]);
  for (auto &th : pool) th.join();
  int bad = 0;
  for (int t = 0; t < threads; t++) {
    if (mismatches[t] != 0) {
      printf("host thread %d: %d mismatches\n", t, mismatches[t]);
      bad++;
    }
  }
  return report("host_threads", bad);
}
