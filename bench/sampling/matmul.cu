// matmul N: one launch of a tiled single-precision matrix multiply C = A B of N x N matrices
// (default 1024; N a multiple of 16): 16x16 CTAs, each thread one element of C, its loop N/16
// tiles long (two global loads and 16 shared-memory multiply-adds a tile).  Small-integer
// inputs make every sum exact, so the result is checked exactly against the CPU; prints a
// checksum.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "../../apps/check.h"

#define TILE 16

__global__ void matmul(const float *A, const float *B, float *C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < n / TILE; ++t) {
    As[threadIdx.y][threadIdx.x] = A[row * n + t * TILE + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + col];
    __syncthreads();
    for (int i = 0; i < TILE; ++i) acc += As[threadIdx.y][i] * Bs[i][threadIdx.x];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1024;
  if (n <= 0 || n % TILE) {
    printf("matmul: N must be a positive multiple of %d\n", TILE);
    return 2;
  }
  const size_t bytes = (size_t)n * n * sizeof(float);
  std::vector<float> a((size_t)n * n), b((size_t)n * n), c((size_t)n * n);
  for (size_t i = 0; i < a.size(); i++) {
    a[i] = (float)((int)(i * 7 % 9) - 4);
    b[i] = (float)((int)(i * 5 % 7) - 3);
  }
  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, bytes));
  CHECK(cudaMalloc(&db, bytes));
  CHECK(cudaMalloc(&dc, bytes));
  CHECK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));
  matmul<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(da, db, dc, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));
  // the CPU product, row by row (i-k-j order); every partial sum is a small integer, exact in
  // float whatever the order of the additions
  int bad = 0;
  double sum = 0.0;
  std::vector<float> row(n);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) row[j] = 0.0f;
    for (int k = 0; k < n; k++) {
      float v = a[(size_t)i * n + k];
      const float *bk = &b[(size_t)k * n];
      for (int j = 0; j < n; j++) row[j] += v * bk[j];
    }
    for (int j = 0; j < n; j++) {
      if (row[j] != c[(size_t)i * n + j]) bad++;
      sum += c[(size_t)i * n + j] * (1 + (i + j) % 3);
    }
  }
  printf("checksum %.9e\n", sum);
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  return report("matmul", bad);
}
