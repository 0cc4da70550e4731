// device_var: module-scope __device__ variables. A statically initialised __device__ array
// is read back with cudaMemcpyFromSymbol before any kernel runs (checks the loader applies
// initialisers); a kernel then accumulates into a __device__ counter with atomicAdd and
// writes a __device__ array; both are read back with cudaMemcpyFromSymbol (one with an
// offset). The counter is reset with cudaMemcpyToSymbol between two launches.
#include "check.h"

__device__ int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__device__ unsigned long long counter;
__device__ int squares[64];

__global__ void work(int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    squares[i] = i * i + table[i % 8];
    atomicAdd(&counter, (unsigned long long)(i + 1));
  }
}

int main() {
  int bad = 0;
  int init[8];
  CHECK(cudaMemcpyFromSymbol(init, table, sizeof(init)));
  const int expect[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  for (int k = 0; k < 8; k++) {
    if (init[k] != expect[k]) {
      printf("table[%d] = %d, expected %d\n", k, init[k], expect[k]);
      bad++;
    }
  }

  unsigned long long zero = 0, got = 0;
  for (int round = 0; round < 2; round++) {
    const int n = round == 0 ? 64 : 40;
    CHECK(cudaMemcpyToSymbol(counter, &zero, sizeof(zero)));
    work<<<2, 32>>>(n);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpyFromSymbol(&got, counter, sizeof(got)));
    unsigned long long ref = (unsigned long long)n * (n + 1) / 2;
    if (got != ref) {
      printf("round %d: counter %llu != %llu\n", round, got, ref);
      bad++;
    }
  }
  int sq[64];
  CHECK(cudaMemcpyFromSymbol(sq, squares, sizeof(sq)));
  for (int i = 0; i < 64; i++) {
    if (sq[i] != i * i + expect[i % 8]) {
      if (bad < 5) printf("squares[%d] = %d\n", i, sq[i]);
      bad++;
    }
  }
  int tail[4];
  CHECK(cudaMemcpyFromSymbol(tail, squares, sizeof(tail), 60 * sizeof(int)));
  for (int k = 0; k < 4; k++) bad += (tail[k] != (60 + k) * (60 + k) + expect[(60 + k) % 8]);
  return report("device_var", bad);
}
