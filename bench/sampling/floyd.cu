// floyd N: Floyd-Warshall all-pairs shortest paths on a random N-vertex graph, one launch per
// intermediate vertex k (N launches of the same grid and nearly the same instruction count).
// Each launch reads row k and column k of the distance matrix, so its memory behaviour moves
// with k: a many-launch program whose launches look alike to kernel sampling but whose timing
// varies more over the whole loop than over its first few launches.  Prints a checksum and
// checks the result against the same algorithm on the CPU.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "../../apps/check.h"

#define NO_EDGE 100000

__global__ void relax(int *d, int n, int k) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y;
  if (j >= n) return;
  int via = d[i * n + k] + d[k * n + j];
  if (via < d[i * n + j]) d[i * n + j] = via;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 128;
  std::vector<int> h(n * n);
  srand(3);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      h[i * n + j] = i == j ? 0 : (rand() % 4 == 0 ? rand() % 50 + 1 : NO_EDGE);
  std::vector<int> ref = h;
  int *d;
  CHECK(cudaMalloc(&d, n * n * sizeof(int)));
  CHECK(cudaMemcpy(d, h.data(), n * n * sizeof(int), cudaMemcpyHostToDevice));
  dim3 grid((n + 127) / 128, n);
  for (int k = 0; k < n; k++) {
    relax<<<grid, 128>>>(d, n, k);
    CHECK_LAUNCH();
  }
  CHECK(cudaMemcpy(h.data(), d, n * n * sizeof(int), cudaMemcpyDeviceToHost));
  // row k and column k do not change during step k, so the CPU's order gives the same result
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        if (ref[i * n + k] + ref[k * n + j] < ref[i * n + j]) ref[i * n + j] = ref[i * n + k] + ref[k * n + j];
  long sum = 0;
  int bad = 0;
  for (int i = 0; i < n * n; i++) {
    sum += h[i];
    if (h[i] != ref[i]) bad++;
  }
  printf("checksum %ld\n", sum);
  CHECK(cudaFree(d));
  return report("floyd", bad);
}
