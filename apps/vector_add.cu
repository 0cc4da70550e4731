// vector_add: c[i] = a[i] + b[i] over 5,000 floats (the last block is partial, so the
// bounds check in the kernel matters). Exact compare with the CPU sum.
#include <vector>
#include "check.h"

__global__ void vectorAdd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 5000;
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (int i = 0; i < n; i++) {
    a[i] = 0.25f * i;
    b[i] = 3.0f - 0.5f * (i % 37);
  }
  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, n * sizeof(float)));
  CHECK(cudaMalloc(&db, n * sizeof(float)));
  CHECK(cudaMalloc(&dc, n * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dc, 0, n * sizeof(float)));
  const int threads = 128, blocks = (n + threads - 1) / threads;
  vectorAdd<<<blocks, threads>>>(da, db, dc, n);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; i++) {
    if (c[i] != a[i] + b[i]) {
      if (bad < 5) printf("mismatch at %d: %f != %f\n", i, c[i], a[i] + b[i]);
      bad++;
    }
  }
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  return report("vector_add", bad);
}
