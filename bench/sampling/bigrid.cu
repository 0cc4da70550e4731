// bigrid N_CTAS: one launch of a grid of N_CTAS 128-thread CTAs (default 10,240), each thread
// a short loop of fused multiply-adds on one element (y = a * x + y, eight times, with a
// per-element coefficient), so every wave of CTAs does the same work.  Checked exactly against
// the CPU (the same float operations in the same order); prints a checksum.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "../../apps/check.h"

__global__ void waves(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float a = x[i], v = y[i];
    for (int k = 0; k < 8; k++) v = __fmaf_rn(a, v, 0.5f);
    y[i] = v;
  }
}

int main(int argc, char **argv) {
  const int ctas = argc > 1 ? atoi(argv[1]) : 10240, n = ctas * 128;
  std::vector<float> x(n), y(n), out(n);
  for (int i = 0; i < n; i++) { x[i] = 0.25f + (i % 13) * 0.03125f; y[i] = (i % 7) * 0.5f; }
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  waves<<<ctas, 128>>>(dx, dy, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  double sum = 0.0;
  for (int i = 0; i < n; i++) {
    float v = y[i];
    for (int k = 0; k < 8; k++) v = fmaf(x[i], v, 0.5f);
    if (v != out[i]) bad++;
    sum += out[i] * (1 + i % 3);
  }
  printf("checksum %.9e\n", sum);
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  return report("bigrid", bad);
}
