// histogram: 64-bin histogram of 6,000 values, with a quarter of them in bin 7 so that one
// address is contended. histGlobal does one atomicAdd per element on global memory;
// histShared privatises the bins in shared memory (shared atomicAdd), then adds each
// non-zero block bin to global memory with one global atomicAdd. Grid-stride loops.
// Both results are compared exactly with the CPU histogram.
#include <vector>
#include "check.h"

#define BINS 64

__global__ void histGlobal(const unsigned *data, int n, unsigned *bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i] % BINS], 1u);
}

__global__ void histShared(const unsigned *data, int n, unsigned *bins) {
  __shared__ unsigned local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i] % BINS], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);
}

int main() {
  const int n = 6000;
  std::vector<unsigned> h(n);
  std::vector<unsigned> ref(BINS, 0);
  unsigned x = 12345u;
  for (int i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    h[i] = (i % 4 == 0) ? 7u : (x >> 8);
    ref[h[i] % BINS]++;
  }
  unsigned *dd, *dg, *ds;
  CHECK(cudaMalloc(&dd, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&dg, BINS * sizeof(unsigned)));
  CHECK(cudaMalloc(&ds, BINS * sizeof(unsigned)));
  CHECK(cudaMemcpy(dd, h.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dg, 0, BINS * sizeof(unsigned)));
  CHECK(cudaMemset(ds, 0, BINS * sizeof(unsigned)));
  histGlobal<<<8, 128>>>(dd, n, dg);
  CHECK_LAUNCH();
  histShared<<<6, 96>>>(dd, n, ds);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> g(BINS), s(BINS);
  CHECK(cudaMemcpy(g.data(), dg, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(s.data(), ds, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int b = 0; b < BINS; b++) {
    if (g[b] != ref[b] || s[b] != ref[b]) {
      if (bad < 5) printf("bin %d: global %u shared %u ref %u\n", b, g[b], s[b], ref[b]);
      bad++;
    }
  }
  CHECK(cudaFree(dd));
  CHECK(cudaFree(dg));
  CHECK(cudaFree(ds));
  return report("histogram", bad);
}
