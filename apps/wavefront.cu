// wavefront: Needleman-Wunsch-style global alignment score matrix (61x53) filled one
// anti-diagonal per launch (111 launches whose grid size grows then shrinks), each cell
// depending on its north, west and north-west neighbours from earlier launches. Exact
// compare with the CPU dynamic programme.
#include <vector>
#include "check.h"

__global__ void diagonal(int *score, const char *a, const char *b, int rows, int cols, int d, int gap) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int i = (d < cols ? 1 : d - cols + 2) + k;  // row of the k-th cell on diagonal i + j = d + 1
  int j = d + 1 - i;
  if (i < 1 || i >= rows || j < 1 || j >= cols) return;
  int match = (a[i - 1] == b[j - 1]) ? 3 : -2;
  int nw = score[(i - 1) * cols + j - 1] + match;
  int n = score[(i - 1) * cols + j] - gap;
  int w = score[i * cols + j - 1] - gap;
  int best = nw > n ? nw : n;
  score[i * cols + j] = best > w ? best : w;
}

int main() {
  const int la = 60, lb = 52, rows = la + 1, cols = lb + 1, gap = 1;
  std::vector<char> a(la), b(lb);
  unsigned x = 7u;
  for (int i = 0; i < la; i++) { x = x * 1103515245u + 12345u; a[i] = "ACGT"[(x >> 16) & 3]; }
  for (int j = 0; j < lb; j++) { x = x * 1103515245u + 12345u; b[j] = "ACGT"[(x >> 16) & 3]; }
  std::vector<int> score(rows * cols, 0), ref(rows * cols, 0);
  for (int i = 0; i < rows; i++) score[i * cols] = ref[i * cols] = -gap * i;
  for (int j = 0; j < cols; j++) score[j] = ref[j] = -gap * j;
  int *ds;
  char *da, *db;
  CHECK(cudaMalloc(&ds, rows * cols * sizeof(int)));
  CHECK(cudaMalloc(&da, la));
  CHECK(cudaMalloc(&db, lb));
  CHECK(cudaMemcpy(ds, score.data(), rows * cols * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(da, a.data(), la, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), lb, cudaMemcpyHostToDevice));
  int launches = 0;
  for (int d = 1; d <= la + lb - 1; d++) {  // cells with i + j = d + 1, 1 <= i <= la, 1 <= j <= lb
    int lo = d < cols ? 1 : d - cols + 2;
    int hi = d < rows ? d : rows - 1;
    int cells = hi - lo + 1;
    diagonal<<<(cells + 31) / 32, 32>>>(ds, da, db, rows, cols, d, gap);
    CHECK_LAUNCH();
    launches++;
  }
  CHECK(cudaMemcpy(score.data(), ds, rows * cols * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 1; i < rows; i++)
    for (int j = 1; j < cols; j++) {
      int m = (a[i - 1] == b[j - 1]) ? 3 : -2;
      int best = ref[(i - 1) * cols + j - 1] + m;
      best = best > ref[(i - 1) * cols + j] - gap ? best : ref[(i - 1) * cols + j] - gap;
      ref[i * cols + j] = best > ref[i * cols + j - 1] - gap ? best : ref[i * cols + j - 1] - gap;
    }
  int bad = 0;
  for (int i = 0; i < rows * cols; i++) {
    if (score[i] != ref[i]) {
      if (bad < 5) printf("cell (%d,%d): %d != %d\n", i / cols, i % cols, score[i], ref[i]);
      bad++;
    }
  }
  printf("launches=%d score=%d\n", launches, score[rows * cols - 1]);
  CHECK(cudaFree(ds));
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  return report("wavefront", bad);
}
