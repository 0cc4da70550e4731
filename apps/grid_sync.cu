// grid_sync: a cooperative launch (cudaLaunchCooperativeKernel) whose kernel synchronises the
// whole grid with cooperative_groups::this_grid().sync(): every thread writes a[i], the grid
// syncs, then each thread reads an element written by a thread in another block. The grid
// (4 blocks x 128) is sized within the occupancy limit, as cooperative launches require.
#include <cooperative_groups.h>
#include <vector>
#include "check.h"

namespace cg = cooperative_groups;

__global__ void reverseAcrossGrid(int *a, int *b, int n) {
  cg::grid_group grid = cg::this_grid();
  int i = (int)grid.thread_rank();
  if (i < n) a[i] = 3 * i + 1;
  grid.sync();
  if (i < n) b[i] = a[n - 1 - i];
}

int main() {
  const int blocks = 4, threads = 128, n = blocks * threads;
  int supported = 0;
  CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, 0));
  int perSM = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, reverseAcrossGrid, threads, 0));
  printf("cooperative launch attribute %d, %d blocks/SM\n", supported, perSM);
  int *a, *b;
  CHECK(cudaMalloc(&a, n * sizeof(int)));
  CHECK(cudaMalloc(&b, n * sizeof(int)));
  int nn = n;
  void *args[] = {&a, &b, &nn};
  CHECK(cudaLaunchCooperativeKernel((void *)reverseAcrossGrid, dim3(blocks), dim3(threads), args, 0, 0));
  std::vector<int> h(n);
  CHECK(cudaMemcpy(h.data(), b, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = (supported != 1);
  for (int i = 0; i < n; i++) bad += (h[i] != 3 * (n - 1 - i) + 1);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  return report("grid_sync", bad);
}
