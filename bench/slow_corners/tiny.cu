// Many small launches (issue 12.4, corner b): one tiny kernel launched N times (default 2,000);
// the host loop times itself, so the figure is the per-launch cost through the runtime.
#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void inc(int *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}

int main(int argc, char **argv) {
  int launches = argc > 1 ? atoi(argv[1]) : 2000;
  const int n = 64;
  int *d;
  cudaMalloc(&d, n * sizeof(int));
  cudaMemset(d, 0, n * sizeof(int));
  inc<<<1, n>>>(d, n);
  cudaDeviceSynchronize();
  auto t0 = std::chrono::steady_clock::now();
  for (int l = 0; l < launches; l++) inc<<<1, n>>>(d, n);
  cudaDeviceSynchronize();
  auto t1 = std::chrono::steady_clock::now();
  int h[n];
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  bool ok = h[0] == launches + 1 && h[n - 1] == launches + 1;
  printf("tiny: %d launches, %.3f ms per launch, %s\n", launches, ms / launches, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
