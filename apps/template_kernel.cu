// template_kernel: one kernel template instantiated twice (float and int element types,
// with different compile-time unroll factors), so the binary holds two mangled entries of
// the same name. Each instantiation computes y[i] = a * x[i] + y[i] with UNROLL elements
// per thread. Exact compare (the float inputs are small integers and halves).
#include <vector>
#include "check.h"

template <typename T, int UNROLL>
__global__ void axpy(T a, const T *x, T *y, int n) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
#pragma unroll
  for (int u = 0; u < UNROLL; u++) {
    int i = base + u;
    if (i < n) y[i] = a * x[i] + y[i];
  }
}

template <typename T, int UNROLL>
static int runCase(const char *name, T a, int n) {
  std::vector<T> x(n), y(n), out(n);
  for (int i = 0; i < n; i++) {
    x[i] = (T)((i % 19) - 9) / (T)2;
    y[i] = (T)(i % 7);
  }
  T *dx, *dy;
  CHECK(cudaMalloc(&dx, n * sizeof(T)));
  CHECK(cudaMalloc(&dy, n * sizeof(T)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  const int threads = 64;
  const int perBlock = threads * UNROLL;
  axpy<T, UNROLL><<<(n + perBlock - 1) / perBlock, threads>>>(a, dx, dy, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dy, n * sizeof(T), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; i++) {
    T ref = a * x[i] + y[i];
    if (out[i] != ref) {
      if (bad < 5) printf("%s[%d]: %f != %f\n", name, i, (double)out[i], (double)ref);
      bad++;
    }
  }
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  return bad;
}

int main() {
  int bad = runCase<float, 4>("float", 1.5f, 1000);
  bad += runCase<int, 2>("int", -3, 777);
  return report("template_kernel", bad);
}
