// launches N: one 64-thread kernel launched N times in a row, without synchronising (the
// host runs ahead of the simulation); the sum over all launches is checked exactly.
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void bump(unsigned *acc, unsigned k) { acc[threadIdx.x] += k + threadIdx.x; }

int main(int argc, char **argv) {
  const int n = 64, launches = argc > 1 ? atoi(argv[1]) : 2000;
  unsigned *d;
  cudaMalloc(&d, n * sizeof(unsigned));
  cudaMemset(d, 0, n * sizeof(unsigned));
  for (int k = 0; k < launches; k++) bump<<<1, n>>>(d, (unsigned)k);
  std::vector<unsigned> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int t = 0; t < n; t++)
    bad += h[t] != (unsigned)launches * (launches - 1) / 2 + (unsigned)launches * t;
  printf("launches %d: %s\n", launches, bad ? "FAIL" : "PASS");
  return bad != 0;
}
