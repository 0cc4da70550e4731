// noinline_call: kernels that call __noinline__ __device__ functions (real PTX .func calls
// with parameters and return values): a scalar function called in a divergent branch, a
// function taking a pointer and writing through it, and one noinline function calling
// another. Exact compare with the same functions on the CPU.
#include <vector>
#include "check.h"

__host__ __device__ __noinline__ int collatzSteps(unsigned v) {
  int steps = 0;
  while (v != 1u && steps < 500) {
    v = (v & 1u) ? 3u * v + 1u : v >> 1;
    steps++;
  }
  return steps;
}

__host__ __device__ __noinline__ void minMax(const int *vals, int count, int *lo, int *hi) {
  int a = vals[0], b = vals[0];
  for (int k = 1; k < count; k++) {
    a = vals[k] < a ? vals[k] : a;
    b = vals[k] > b ? vals[k] : b;
  }
  *lo = a;
  *hi = b;
}

__host__ __device__ __noinline__ float blend(float x, float y, int steps) {
  return x * 0.25f + y * 0.75f + (float)(steps & 7);
}

__host__ __device__ __noinline__ float combine(int i, float x) {
  int s = collatzSteps((unsigned)i + 1u);  // a call from a call
  return blend(x, (float)s, s);
}

__global__ void callKernel(const int *data, int *steps, int *ranges, float *mixed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (i % 3 != 0)
    steps[i] = collatzSteps((unsigned)data[i]);
  else
    steps[i] = -1;
  int lo, hi;
  minMax(data + (i / 8) * 8, 8, &lo, &hi);
  ranges[i] = hi - lo;
  mixed[i] = combine(i, (float)data[i]);
}

int main() {
  const int n = 160;
  std::vector<int> data(n), steps(n), ranges(n);
  std::vector<float> mixed(n);
  for (int i = 0; i < n; i++) data[i] = (i * 37) % 91 + 1;
  int *dd, *ds, *dr;
  float *dm;
  CHECK(cudaMalloc(&dd, n * sizeof(int)));
  CHECK(cudaMalloc(&ds, n * sizeof(int)));
  CHECK(cudaMalloc(&dr, n * sizeof(int)));
  CHECK(cudaMalloc(&dm, n * sizeof(float)));
  CHECK(cudaMemcpy(dd, data.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  callKernel<<<(n + 63) / 64, 64>>>(dd, ds, dr, dm, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(steps.data(), ds, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(ranges.data(), dr, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(mixed.data(), dm, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; i++) {
    int refSteps = (i % 3 != 0) ? collatzSteps((unsigned)data[i]) : -1;
    int lo, hi;
    minMax(data.data() + (i / 8) * 8, 8, &lo, &hi);
    float refMixed = combine(i, (float)data[i]);
    if (steps[i] != refSteps || ranges[i] != hi - lo || mixed[i] != refMixed) {
      if (bad < 5)
        printf("thread %d: %d/%d %d/%d %f/%f\n", i, steps[i], refSteps, ranges[i], hi - lo, mixed[i], refMixed);
      bad++;
    }
  }
  CHECK(cudaFree(dd));
  CHECK(cudaFree(ds));
  CHECK(cudaFree(dr));
  CHECK(cudaFree(dm));
  return report("noinline_call", bad);
}
