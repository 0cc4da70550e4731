// mvt N: y = A x for an N x N matrix kept transposed (so that a warp's loads coalesce), one
// thread a row looping over the N columns: one launch of N / 256 CTAs, fewer than the SMs,
// every CTA resident from the start (a grid of one wave), bound by its loads.  Sampling
// inside the wave measures the loop's rate and projects its end.  Prints a checksum and checks
// y against the same sums on the CPU.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "../../apps/check.h"

__global__ void mvt(const float *at, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int j = 0; j < n; j++) s += at[(size_t)j * n + i] * x[j];
  y[i] = s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2048;
  std::vector<float> at((size_t)n * n), x(n), y(n);
  for (size_t k = 0; k < at.size(); k++) at[k] = (float)((k * 7) % 13) * 0.25f;
  for (int j = 0; j < n; j++) x[j] = (float)(j % 5);
  float *dat, *dx, *dy;
  CHECK(cudaMalloc(&dat, at.size() * sizeof(float)));
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMemcpy(dat, at.data(), at.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  mvt<<<(n + 255) / 256, 256>>>(dat, dx, dy, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  double sum = 0.0;
  for (int i = 0; i < n; i++) {
    double r = 0.0;
    for (int j = 0; j < n; j++) r += (double)at[(size_t)j * n + i] * x[j];
    sum += y[i];
    if (fabs(y[i] - r) > 1e-4 * (1.0 + fabs(r))) bad++;
  }
  printf("checksum %.3f\n", sum);
  CHECK(cudaFree(dat)); CHECK(cudaFree(dx)); CHECK(cudaFree(dy));
  return report("mvt", bad);
}
