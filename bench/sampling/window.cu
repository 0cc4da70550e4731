// window N STEPS: STEPS launches of one kernel on a fixed grid of N threads, each thread
// averaging a window of the input that widens launch by launch (1 + s / 3 elements at step s,
// gathered with a stride so that they spread over the array).  A many-launch program whose
// work grows, bound by its loads, unlike gauss's shrinking steps bound by latency: kernel
// sampling meets a new group every ~10 % of growth.  Prints a checksum and checks the result
// against the same sums on the CPU.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "../../apps/check.h"

__global__ void window_mean(float *out, const float *in, int n, int w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int j = 0; j < w; j++) s += in[(i + j * 97) % n];
  out[i] = 0.5f * out[i] + 0.5f * s / w;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8192;
  int steps = argc > 2 ? atoi(argv[2]) : 100;
  std::vector<float> in(n), out(n, 0.0f), ref(n, 0.0f);
  srand(11);
  for (int i = 0; i < n; i++) in[i] = (float)(rand() % 1000) / 100.0f;
  float *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(float)));
  CHECK(cudaMalloc(&dout, n * sizeof(float)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dout, 0, n * sizeof(float)));
  for (int s = 0; s < steps; s++) {
    int w = 1 + s / 3;
    window_mean<<<(n + 255) / 256, 256>>>(dout, din, n, w);
    CHECK_LAUNCH();
    for (int i = 0; i < n; i++) {
      float t = 0.0f;
      for (int j = 0; j < w; j++) t += in[(i + j * 97) % n];
      ref[i] = 0.5f * ref[i] + 0.5f * t / w;
    }
  }
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  double sum = 0.0;
  for (int i = 0; i < n; i++) {
    sum += out[i];
    if (fabs(out[i] - ref[i]) > 1e-3f * (1.0f + fabs(ref[i]))) bad++;
  }
  printf("checksum %.4f\n", sum);
  CHECK(cudaFree(din)); CHECK(cudaFree(dout));
  return report("window", bad);
}
