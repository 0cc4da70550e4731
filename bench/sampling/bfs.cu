// bfs NODES: level-synchronous breadth-first search over a random CSR graph of NODES nodes
// (default 100,000; out-degrees 0..8, from a fixed generator), one launch of a one-thread-per-
// node kernel per level until no node changes.  The levels are checked exactly against a CPU
// BFS; prints the number of levels and a checksum.  Every launch has the same grid but its own
// frontier, so launches differ in work from level to level.
#include <cstdio>
#include <cstdlib>
#include <queue>
#include <vector>
#include "../../apps/check.h"

__global__ void bfsLevel(const int *rowStart, const int *cols, int *level, int nodes, int cur,
                         int *changed) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nodes || level[v] != cur) return;
  for (int e = rowStart[v]; e < rowStart[v + 1]; e++) {
    int u = cols[e];
    if (level[u] < 0) {
      level[u] = cur + 1;  // every writer stores the same value
      *changed = 1;
    }
  }
}

int main(int argc, char **argv) {
  const int nodes = argc > 1 ? atoi(argv[1]) : 100000;
  if (nodes <= 0) {
    printf("bfs: NODES must be positive\n");
    return 2;
  }
  std::vector<int> rowStart(nodes + 1, 0), cols;
  unsigned x = 2024u;
  for (int v = 0; v < nodes; v++) {
    x = x * 1103515245u + 12345u;
    int degree = (int)((x >> 16) % 9);
    for (int d = 0; d < degree; d++) {
      x = x * 1103515245u + 12345u;
      cols.push_back((int)((x >> 8) % (unsigned)nodes));
    }
    rowStart[v + 1] = (int)cols.size();
  }
  const int edges = (int)cols.size();
  std::vector<int> level(nodes, -1);
  level[0] = 0;
  int *dRow, *dCols, *dLevel, *dChanged;
  CHECK(cudaMalloc(&dRow, (nodes + 1) * sizeof(int)));
  CHECK(cudaMalloc(&dCols, (edges > 0 ? edges : 1) * sizeof(int)));
  CHECK(cudaMalloc(&dLevel, nodes * sizeof(int)));
  CHECK(cudaMalloc(&dChanged, sizeof(int)));
  CHECK(cudaMemcpy(dRow, rowStart.data(), (nodes + 1) * sizeof(int), cudaMemcpyHostToDevice));
  if (edges > 0) CHECK(cudaMemcpy(dCols, cols.data(), edges * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dLevel, level.data(), nodes * sizeof(int), cudaMemcpyHostToDevice));
  const int threads = 256, blocks = (nodes + threads - 1) / threads;
  int cur = 0;
  for (;; cur++) {
    int changed = 0;
    CHECK(cudaMemcpy(dChanged, &changed, sizeof(int), cudaMemcpyHostToDevice));
    bfsLevel<<<blocks, threads>>>(dRow, dCols, dLevel, nodes, cur, dChanged);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(&changed, dChanged, sizeof(int), cudaMemcpyDeviceToHost));
    if (!changed) break;
  }
  std::vector<int> got(nodes);
  CHECK(cudaMemcpy(got.data(), dLevel, nodes * sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<int> want(nodes, -1);
  std::queue<int> q;
  want[0] = 0;
  q.push(0);
  while (!q.empty()) {
    int v = q.front();
    q.pop();
    for (int e = rowStart[v]; e < rowStart[v + 1]; e++)
      if (want[cols[e]] < 0) {
        want[cols[e]] = want[v] + 1;
        q.push(cols[e]);
      }
  }
  int bad = 0;
  double sum = 0.0;
  for (int v = 0; v < nodes; v++) {
    if (got[v] != want[v]) bad++;
    sum += (double)(got[v] + 2) * (1 + v % 5);
  }
  printf("levels %d checksum %.9e\n", cur + 1, sum);
  CHECK(cudaFree(dRow));
  CHECK(cudaFree(dCols));
  CHECK(cudaFree(dLevel));
  CHECK(cudaFree(dChanged));
  return report("bfs", bad);
}
