// gauss N: Gaussian elimination of an N x N diagonally dominant system (no pivoting), one
// elimination step per pair of launches -- the multipliers of column t, then the update of the
// rows below t -- so 2 (N - 1) launches whose work shrinks step by step while their grids stay
// the same; back substitution on the host.  A many-launch program whose launches are not
// alike: the update kernel takes about as long with fewer rows left (it is bound by latency).
// Prints the solution's checksum and checks it against the known solution.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "../../apps/check.h"

__global__ void multipliers(float *m, const float *a, int n, int t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n - 1 - t) return;
  int row = i + t + 1;
  m[row * n + t] = a[row * n + t] / a[t * n + t];
}

__global__ void eliminate(float *a, float *b, const float *m, int n, int t) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n - 1 - t || c >= n - t) return;
  int row = r + t + 1, col = c + t;
  float f = m[row * n + t];
  a[row * n + col] -= f * a[t * n + col];
  if (c == 0) b[row] -= f * b[t];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 128;
  std::vector<float> a(n * n), b(n), x(n);
  srand(7);
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int j = 0; j < n; j++) {
      a[i * n + j] = (float)(rand() % 100) / 100.0f;
      s += a[i * n + j];
    }
    a[i * n + i] += s + 1.0f;   // diagonally dominant: elimination needs no pivoting
  }
  // b = A x for the solution x_j = j % 7 + 1
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int j = 0; j < n; j++) s += a[i * n + j] * (float)(j % 7 + 1);
    b[i] = s;
  }
  float *da, *db, *dm;
  CHECK(cudaMalloc(&da, n * n * sizeof(float)));
  CHECK(cudaMalloc(&db, n * sizeof(float)));
  CHECK(cudaMalloc(&dm, n * n * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), n * n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dm, 0, n * n * sizeof(float)));
  dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
  for (int t = 0; t < n - 1; t++) {
    multipliers<<<(n + 127) / 128, 128>>>(dm, da, n, t);
    CHECK_LAUNCH();
    eliminate<<<grid, block>>>(da, db, dm, n, t);
    CHECK_LAUNCH();
  }
  CHECK(cudaMemcpy(a.data(), da, n * n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b.data(), db, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = n - 1; i >= 0; i--) {
    float s = b[i];
    for (int j = i + 1; j < n; j++) s -= a[i * n + j] * x[j];
    x[i] = s / a[i * n + i];
  }
  int bad = 0;
  double sum = 0.0;
  for (int i = 0; i < n; i++) {
    sum += x[i];
    if (fabs(x[i] - (float)(i % 7 + 1)) > 1e-3) bad++;
  }
  printf("checksum %.4f\n", sum);
  CHECK(cudaFree(da)); CHECK(cudaFree(db)); CHECK(cudaFree(dm));
  return report("gauss", bad);
}
