// gather MIB N: N launches of one kernel gathering from a read-only input of MIB MiB into a
// 64 KB output (kernel sampling projects most launches; each projection's trial run writes
// only the output); the output's sum is checked.
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void gather(const float *in, float *out, size_t n, int k) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] += in[(i * 97 + (size_t)k * 4099) % n];
}

int main(int argc, char **argv) {
  const size_t n = (size_t)(argc > 1 ? atoi(argv[1]) : 64) << 18;   // floats
  const int launches = argc > 2 ? atoi(argv[2]) : 200, m = 16384;
  std::vector<float> h(n), o(m);
  for (size_t i = 0; i < n; i++) h[i] = (float)(i % 7);
  float *din, *dout;
  cudaMalloc(&din, n * 4);
  cudaMalloc(&dout, m * 4);
  cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemset(dout, 0, m * 4);
  for (int k = 0; k < launches; k++) gather<<<m / 256, 256>>>(din, dout, n, k);
  cudaMemcpy(o.data(), dout, m * 4, cudaMemcpyDeviceToHost);
  double want = 0, got = 0;
  for (int k = 0; k < launches; k++)
    for (size_t i = 0; i < (size_t)m; i++) want += h[(i * 97 + (size_t)k * 4099) % n];
  for (int i = 0; i < m; i++) got += o[i];
  printf("gather %zu MiB x %d: %s\n", n >> 18, launches, want == got ? "PASS" : "FAIL");
  return want != got;
}
