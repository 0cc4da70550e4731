// recursion: genuinely recursive __device__ functions (a call stack in local memory):
// a doubly recursive Fibonacci (depth <= 12, with divergent depths across the warp) and a
// recursive quicksort of a 16-element per-thread array in local memory. Exact compare.
#include <vector>
#include "check.h"

__host__ __device__ int fib(int k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }

__host__ __device__ void quicksort(int *a, int lo, int hi) {
  if (lo >= hi) return;
  int pivot = a[(lo + hi) / 2], i = lo, j = hi;
  while (i <= j) {
    while (a[i] < pivot) i++;
    while (a[j] > pivot) j--;
    if (i <= j) {
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
      i++;
      j--;
    }
  }
  quicksort(a, lo, j);
  quicksort(a, i, hi);
}

__global__ void recurse(int *fibOut, int *sorted, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  fibOut[t] = fib(t % 13);
  int a[16];
  unsigned x = 977u * t + 1u;
  for (int k = 0; k < 16; k++) {
    x = x * 1103515245u + 12345u;
    a[k] = (int)((x >> 16) % 100) - 50;
  }
  quicksort(a, 0, 15);
  int checksum = 0;
  for (int k = 0; k < 16; k++) checksum = checksum * 31 + a[k];
  sorted[t] = checksum;
}

int main() {
  const int n = 96;
  int *dfib, *dsorted;
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
  CHECK(cudaMalloc(&dfib, n * sizeof(int)));
  CHECK(cudaMalloc(&dsorted, n * sizeof(int)));
  recurse<<<3, 32>>>(dfib, dsorted, n);
  CHECK_LAUNCH();
  std::vector<int> f(n), s(n);
  CHECK(cudaMemcpy(f.data(), dfib, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(s.data(), dsorted, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int t = 0; t < n; t++) {
    int a[16];
    unsigned x = 977u * t + 1u;
    for (int k = 0; k < 16; k++) {
      x = x * 1103515245u + 12345u;
      a[k] = (int)((x >> 16) % 100) - 50;
    }
    quicksort(a, 0, 15);
    int checksum = 0;
    for (int k = 0; k < 16; k++) checksum = checksum * 31 + a[k];
    if (f[t] != fib(t % 13) || s[t] != checksum) {
      if (bad < 5) printf("thread %d: fib %d/%d sort %d/%d\n", t, f[t], fib(t % 13), s[t], checksum);
      bad++;
    }
  }
  CHECK(cudaFree(dfib));
  CHECK(cudaFree(dsorted));
  return report("recursion", bad);
}
