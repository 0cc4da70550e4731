// matmul_tiled: C = A * B for a 44x36 by 36x52 float product with 8x8 shared-memory tiles
// and two __syncthreads() per tile step. No dimension is a multiple of the tile, so the
// zero-fill guards on the tile loads and the store guard are exercised. Integer-valued
// inputs keep the float sums exact.
#include <vector>
#include "check.h"

#define TILE 8

__global__ void matmulTiled(const float *A, const float *B, float *C, int M, int K, int N) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (K + TILE - 1) / TILE; t++) {
    int ka = t * TILE + threadIdx.x;
    int kb = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

int main() {
  const int M = 44, K = 36, N = 52;
  std::vector<float> A(M * K), B(K * N), C(M * N, -1.0f);
  for (int i = 0; i < M * K; i++) A[i] = (float)((i * 7) % 11 - 5);
  for (int i = 0; i < K * N; i++) B[i] = (float)((i * 5) % 13 - 6);
  float *dA, *dB, *dC;
  CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
  CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
  CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
  CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(TILE, TILE);
  dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  matmulTiled<<<grid, block>>>(dA, dB, dC, M, K, N);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < M; r++) {
    for (int c = 0; c < N; c++) {
      float ref = 0.0f;
      for (int k = 0; k < K; k++) ref += A[r * K + k] * B[k * N + c];
      if (C[r * N + c] != ref) {
        if (bad < 5) printf("mismatch at (%d,%d): %f != %f\n", r, c, C[r * N + c], ref);
        bad++;
      }
    }
  }
  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dC));
  return report("matmul_tiled", bad);
}
