// kernel_loop: 40 kernel launches from a host loop. Each of 20 iterations runs a 3-point
// integer smoothing step (ping-pong buffers, boundary values fixed) and then a kernel that
// accumulates a per-iteration checksum into a device array, with no host synchronisation
// inside the loop (launch ordering on the default stream is what makes it correct).
// The final buffer and all 20 checksums are compared exactly with the CPU.
#include <vector>
#include "check.h"

__global__ void smooth(const int *cur, int *next, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (i == 0 || i == n - 1)
    next[i] = cur[i];
  else
    next[i] = (cur[i - 1] + 2 * cur[i] + cur[i + 1]) / 4;
}

__global__ void checksum(const int *data, int n, long long *sums, int iter) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd((unsigned long long *)&sums[iter], (unsigned long long)(long long)(data[i] * (i % 5 + 1)));
}

int main() {
  const int n = 500, iters = 20;
  std::vector<int> a(n), b(n);
  for (int i = 0; i < n; i++) a[i] = ((i * 7919) % 1000) - 300;
  int *d0, *d1;
  long long *dsums;
  CHECK(cudaMalloc(&d0, n * sizeof(int)));
  CHECK(cudaMalloc(&d1, n * sizeof(int)));
  CHECK(cudaMalloc(&dsums, iters * sizeof(long long)));
  CHECK(cudaMemset(dsums, 0, iters * sizeof(long long)));
  CHECK(cudaMemcpy(d0, a.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  int *cur = d0, *next = d1;
  for (int it = 0; it < iters; it++) {
    smooth<<<(n + 127) / 128, 128>>>(cur, next, n);
    CHECK_LAUNCH();
    checksum<<<(n + 127) / 128, 128>>>(next, n, dsums, it);
    CHECK_LAUNCH();
    int *t = cur;
    cur = next;
    next = t;
  }
  std::vector<int> out(n);
  std::vector<long long> sums(iters);
  CHECK(cudaMemcpy(out.data(), cur, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(sums.data(), dsums, iters * sizeof(long long), cudaMemcpyDeviceToHost));

  int bad = 0;
  for (int it = 0; it < iters; it++) {
    for (int i = 0; i < n; i++)
      b[i] = (i == 0 || i == n - 1) ? a[i] : (a[i - 1] + 2 * a[i] + a[i + 1]) / 4;
    long long s = 0;
    for (int i = 0; i < n; i++) s += (long long)b[i] * (i % 5 + 1);
    if (sums[it] != s) {
      printf("iteration %d: checksum %lld != %lld\n", it, sums[it], s);
      bad++;
    }
    a.swap(b);
  }
  for (int i = 0; i < n; i++) {
    if (out[i] != a[i]) {
      if (bad < 5) printf("mismatch at %d: %d != %d\n", i, out[i], a[i]);
      bad++;
    }
  }
  CHECK(cudaFree(d0));
  CHECK(cudaFree(d1));
  CHECK(cudaFree(dsums));
  return report("kernel_loop", bad);
}
