// bfs: level-synchronous breadth-first search over a 600-node CSR graph with irregular
// out-degrees (0..9), some unreachable nodes, one kernel launch per level until no node
// changes. Each thread handles one node: a data-dependent branch (is it on the frontier?)
// and a data-dependent loop over its neighbours, so warps diverge and reconverge.
// The levels are compared exactly with a CPU BFS.
#include <queue>
#include <vector>
#include "check.h"

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

int main() {
  const int nodes = 600;
  std::vector<int> rowStart(nodes + 1, 0), cols;
  unsigned x = 2024u;
  for (int v = 0; v < nodes; v++) {
    x = x * 1103515245u + 12345u;
    int degree = (v % 50 == 49) ? 0 : (int)((x >> 16) % 10);
    for (int d = 0; d < degree; d++) {
      x = x * 1103515245u + 12345u;
      int u = (int)((x >> 12) % nodes);
      if (u % 97 == 5) continue;  // nodes with u % 97 == 5 get no in-edges: unreachable
      cols.push_back(u);
    }
    rowStart[v + 1] = (int)cols.size();
  }
  const int edges = (int)cols.size();

  std::vector<int> ref(nodes, -1);
  std::queue<int> q;
  ref[0] = 0;
  q.push(0);
  while (!q.empty()) {
    int v = q.front();
    q.pop();
    for (int e = rowStart[v]; e < rowStart[v + 1]; e++)
      if (ref[cols[e]] < 0) { ref[cols[e]] = ref[v] + 1; q.push(cols[e]); }
  }

  int *dRow, *dCols, *dLevel, *dChanged;
  CHECK(cudaMalloc(&dRow, (nodes + 1) * sizeof(int)));
  CHECK(cudaMalloc(&dCols, edges * sizeof(int)));
  CHECK(cudaMalloc(&dLevel, nodes * sizeof(int)));
  CHECK(cudaMalloc(&dChanged, sizeof(int)));
  CHECK(cudaMemcpy(dRow, rowStart.data(), (nodes + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dCols, cols.data(), edges * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<int> level(nodes, -1);
  level[0] = 0;
  CHECK(cudaMemcpy(dLevel, level.data(), nodes * sizeof(int), cudaMemcpyHostToDevice));

  int cur = 0, changed = 1;
  while (changed) {
    changed = 0;
    CHECK(cudaMemcpy(dChanged, &changed, sizeof(int), cudaMemcpyHostToDevice));
    bfsLevel<<<(nodes + 127) / 128, 128>>>(dRow, dCols, dLevel, nodes, cur, dChanged);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(&changed, dChanged, sizeof(int), cudaMemcpyDeviceToHost));
    cur++;
    if (cur > nodes) { printf("no convergence\n"); return report("bfs", 1); }
  }
  CHECK(cudaMemcpy(level.data(), dLevel, nodes * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0, reached = 0, maxLevel = 0;
  for (int v = 0; v < nodes; v++) {
    if (level[v] != ref[v]) {
      if (bad < 5) printf("node %d: level %d != %d\n", v, level[v], ref[v]);
      bad++;
    }
    if (ref[v] >= 0) reached++;
    if (ref[v] > maxLevel) maxLevel = ref[v];
  }
  printf("edges=%d reached=%d depth=%d launches=%d\n", edges, reached, maxLevel, cur);
  CHECK(cudaFree(dRow));
  CHECK(cudaFree(dCols));
  CHECK(cudaFree(dLevel));
  CHECK(cudaFree(dChanged));
  return report("bfs", bad);
}
