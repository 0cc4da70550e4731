// Tensor cores through inline PTX, the way hand-written GEMM kernels use them (sm_75+, the
// default architecture): tiles of A and B staged in shared memory, ldmatrix.x2 loading A's
// 16x8 fragment and ldmatrix.x1.trans B's 8x8 fragment (B is row-major K x N, so the transpose
// gives the column fragment), mma.sync.m16n8k8 with f32 accumulators over the K dimension.
// 4 warps compute the four 16x8 tiles of a 32x16 C = A (32x32) B (32x16); checked against the
// CPU exactly (small integers).
#include "check.h"
#include <cuda_fp16.h>

#define M 32
#define N 16
#define K 32

__global__ void gemm(const __half *a, const __half *b, float *c) {
  __shared__ __align__(16) __half as[M * K], bs[K * N];
  for (int i = threadIdx.x; i < M * K; i += blockDim.x) as[i] = a[i];
  for (int i = threadIdx.x; i < K * N; i += blockDim.x) bs[i] = b[i];
  __syncthreads();
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  int m0 = (warp / 2) * 16, n0 = (warp % 2) * 8;
  float d[4] = {0, 0, 0, 0};
  for (int k0 = 0; k0 < K; k0 += 8) {
    // lanes 0-15 give the rows m0..m0+15 of A's 16x8 block at column k0 (two 8x8 matrices)
    unsigned pa = (unsigned)__cvta_generic_to_shared(&as[(m0 + lane % 16) * K + k0]);
    // lanes 0-7 give the rows k0..k0+7 of B's 8x8 block at column n0
    unsigned pb = (unsigned)__cvta_generic_to_shared(&bs[(k0 + lane % 8) * N + n0]);
    unsigned ra0, ra1, rb;
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(ra0), "=r"(ra1) : "r"(pa));
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(rb) : "r"(pb));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(ra0), "r"(ra1), "r"(rb));
  }
  for (int i = 0; i < 4; i++) c[(m0 + g + 8 * (i / 2)) * N + n0 + 2 * t + i % 2] = d[i];
}

int main() {
  __half ha[M * K], hb[K * N];
  float fa[M * K], fb[K * N], c[M * N];
  for (int i = 0; i < M * K; i++) { fa[i] = (float)((i * 7) % 11 - 5); ha[i] = __float2half(fa[i]); }
  for (int i = 0; i < K * N; i++) { fb[i] = (float)((i * 5) % 9 - 4); hb[i] = __float2half(fb[i]); }
  __half *da, *db;
  float *dc;
  CHECK(cudaMalloc(&da, sizeof ha));
  CHECK(cudaMalloc(&db, sizeof hb));
  CHECK(cudaMalloc(&dc, sizeof c));
  CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
  gemm<<<1, 128>>>(da, db, dc);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float r = 0;
      for (int k = 0; k < K; k++) r += fa[i * K + k] * fb[k * N + j];
      bad += c[i * N + j] != r;
    }
  printf("C[0][0] = %g, C[31][15] = %g, %d mismatches\n", c[0], c[M * N - 1], bad);
  return report("mma_ldmatrix", bad);
}
