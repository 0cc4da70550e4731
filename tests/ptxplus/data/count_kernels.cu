// Kernels whose SASS is counted by hand in tests/ptxplus/test_counting.py: a straight-line
// kernel and a loop with a fixed trip count.
#include <cstdio>

__global__ void straight(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] * 3 + 1;
}

__global__ void loop(float *out, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = (float)i;
#pragma unroll 1
  for (int k = 0; k < 10; ++k) x = x * a + b;
  out[i] = x;
}

int main() {
  const int n = 256;
  int h_in[n], h_out[n];
  float h_f[n];
  for (int i = 0; i < n; ++i) h_in[i] = i;
  int *d_in, *d_out;
  float *d_f;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_out, n * sizeof(int));
  cudaMalloc(&d_f, n * sizeof(float));
  cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice);
  straight<<<2, 128>>>(d_in, d_out);
  loop<<<2, 128>>>(d_f, 0.5f, 1.0f);
  cudaMemcpy(h_out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(h_f, d_f, n * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    float x = (float)i;
    for (int k = 0; k < 10; ++k) x = x * 0.5f + 1.0f;
    if (h_out[i] != i * 3 + 1 || h_f[i] != x) ++bad;
  }
  printf("count_kernels: %s\n", bad ? "FAIL" : "PASS");
  return bad != 0;
}
