// multi_unit (unit 2 of 2): kernels compiled in their own translation unit, linked into
// the same binary with a normal (whole-program, no -rdc) link. Each unit carries its own
// fatbin, so the runtime must register and look up kernels from both.
#include <vector>
#include "check.h"
#include "multi_unit_lib.h"

__global__ void squareMinus(const int *in, int *out, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i] - k;
}

__constant__ int libOffset;  // a symbol that lives in this unit's module only

__global__ void addLibOffset(int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += libOffset;
}

cudaError_t launchSquareMinus(const int *in, int *out, int n, int k) {
  squareMinus<<<(n + 63) / 64, 64>>>(in, out, n, k);
  return cudaGetLastError();
}

int libSelfCheck() {
  const int n = 100;
  int offset = 1000;
  CHECK(cudaMemcpyToSymbol(libOffset, &offset, sizeof(int)));
  std::vector<int> h(n);
  for (int i = 0; i < n; i++) h[i] = i;
  int *d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  addLibOffset<<<2, 64>>>(d, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d));
  int bad = 0;
  for (int i = 0; i < n; i++) bad += (h[i] != i + 1000);
  return bad;
}
