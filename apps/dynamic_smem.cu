// dynamic_smem: extern __shared__ memory sized at launch. Each block reverses its chunk of
// the input through dynamic shared memory; the same kernel runs with 64, 128 and 200
// threads per block (3 different dynamic sizes), and a second kernel carves the dynamic
// buffer into an int array followed by a double array. Exact compare.
#include <vector>
#include "check.h"

__global__ void reverseChunks(const int *in, int *out, int n) {
  extern __shared__ int chunk[];
  int base = blockIdx.x * blockDim.x;
  int t = threadIdx.x;
  int len = min((int)blockDim.x, n - base);
  if (t < len) chunk[t] = in[base + t];
  __syncthreads();
  if (t < len) out[base + t] = chunk[len - 1 - t];
}

__global__ void carve(int *outInt, double *outDbl) {
  extern __shared__ double raw[];  // double-aligned
  double *dbl = raw;
  int *ints = (int *)(raw + blockDim.x);
  dbl[threadIdx.x] = 0.5 * threadIdx.x;
  ints[threadIdx.x] = 3 * threadIdx.x + 1;
  __syncthreads();
  int j = blockDim.x - 1 - threadIdx.x;
  outInt[threadIdx.x] = ints[j];
  outDbl[threadIdx.x] = dbl[j] + ints[j];
}

int main() {
  const int n = 1000;
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; i++) in[i] = i * 3 - 17;
  int *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  int bad = 0;
  const int sizes[3] = {64, 128, 200};
  for (int s : sizes) {
    CHECK(cudaMemset(dout, 0, n * sizeof(int)));
    reverseChunks<<<(n + s - 1) / s, s, s * sizeof(int)>>>(din, dout, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
      int base = (i / s) * s;
      int len = (n - base < s) ? n - base : s;
      int ref = in[base + (len - 1 - (i - base))];
      if (out[i] != ref) {
        if (bad < 5) printf("block size %d, index %d: %d != %d\n", s, i, out[i], ref);
        bad++;
      }
    }
  }
  const int T = 96;
  int *dInt;
  double *dDbl;
  CHECK(cudaMalloc(&dInt, T * sizeof(int)));
  CHECK(cudaMalloc(&dDbl, T * sizeof(double)));
  carve<<<1, T, T * (sizeof(double) + sizeof(int))>>>(dInt, dDbl);
  CHECK_LAUNCH();
  int hInt[T];
  double hDbl[T];
  CHECK(cudaMemcpy(hInt, dInt, sizeof(hInt), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hDbl, dDbl, sizeof(hDbl), cudaMemcpyDeviceToHost));
  for (int t = 0; t < T; t++) {
    int j = T - 1 - t;
    if (hInt[t] != 3 * j + 1 || hDbl[t] != 0.5 * j + (3 * j + 1)) {
      if (bad < 5) printf("carve %d: %d %f\n", t, hInt[t], hDbl[t]);
      bad++;
    }
  }
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dInt));
  CHECK(cudaFree(dDbl));
  return report("dynamic_smem", bad);
}
