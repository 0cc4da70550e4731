// many_launches: one small kernel launched 2,000 times in a row (per-launch cost of the
// simulator: issue 12's "many small launches" corner).  Each launch adds its launch index to
// 64 counters; the sum over all launches is checked exactly.
#include <vector>
#include "check.h"

__global__ void bump(unsigned *acc, unsigned k) {
  acc[threadIdx.x] += k + threadIdx.x;
}

int main() {
  const int n = 64, launches = 2000;
  unsigned *d;
  CHECK(cudaMalloc(&d, n * sizeof(unsigned)));
  CHECK(cudaMemset(d, 0, n * sizeof(unsigned)));
  for (int k = 0; k < launches; k++) {
    bump<<<1, n>>>(d, (unsigned)k);
    CHECK_LAUNCH();
  }
  std::vector<unsigned> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int t = 0; t < n; t++) {
    unsigned want = (unsigned)launches * (launches - 1) / 2 + (unsigned)launches * t;
    if (h[t] != want) {
      if (bad < 5) printf("mismatch at %d: %u != %u\n", t, h[t], want);
      bad++;
    }
  }
  CHECK(cudaFree(d));
  return report("many_launches", bad);
}
