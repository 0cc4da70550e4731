// wmma_gemm: tensor-core matrix multiply-accumulate through the nvcuda::wmma API, checked
// exactly against the CPU (small integers, so every product and sum is exact):
//  - a 64x32 by 32x48 f16 GEMM with f32 accumulators, one warp per 16x16 output tile (2 k-steps),
//    A row-major, B column-major, the result scaled element by element in the fragment;
//  - m32n8k16 f16 with f16 accumulators, both inputs column-major, C loaded from memory;
//  - m8n32k16 s8 x s8 -> s32 (row/row) and u8 x u8 -> s32 (col/row) from shared memory.
#include <mma.h>
#include <cuda_fp16.h>
#include <vector>
#include "check.h"
using namespace nvcuda;

const int M = 64, N = 48, K = 32;

__global__ void gemm_f16(const half *a, const half *b, float *c) {
  int tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;     // one warp per tile
  int tm = tile / (N / 16), tn = tile % (N / 16);
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.5f);
  for (int kk = 0; kk < K; kk += 16) {
    wmma::load_matrix_sync(fa, a + tm * 16 * K + kk, K);
    wmma::load_matrix_sync(fb, b + tn * 16 * K + kk, K);
    wmma::mma_sync(fc, fa, fb, fc);
  }
  for (int i = 0; i < fc.num_elements; i++) fc.x[i] *= 2.0f;
  wmma::store_matrix_sync(c + tm * 16 * N + tn * 16, fc, N, wmma::mem_row_major);
}

__global__ void mma_f16_acc(const half *a, const half *b, half *c) {
  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, half> fc;
  wmma::load_matrix_sync(fc, c, 8, wmma::mem_row_major);
  wmma::load_matrix_sync(fa, a, 32);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 8, wmma::mem_row_major);
}

__global__ void mma_int8(const signed char *a, const signed char *b, const unsigned char *ua,
                         const unsigned char *ub, int *c, int *uc) {
  __shared__ signed char sa[8 * 16], sb[16 * 32];
  for (int i = threadIdx.x; i < 8 * 16; i += 32) sa[i] = a[i];
  for (int i = threadIdx.x; i < 16 * 32; i += 32) sb[i] = b[i];
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 8, 32, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 32, 16, signed char, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 8, 32, 16, int> fc;
  wmma::fill_fragment(fc, 7);
  wmma::load_matrix_sync(fa, sa, 16);
  wmma::load_matrix_sync(fb, sb, 32);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 32, wmma::mem_row_major);
  wmma::fragment<wmma::matrix_a, 8, 32, 16, unsigned char, wmma::col_major> fua;
  wmma::fragment<wmma::matrix_b, 8, 32, 16, unsigned char, wmma::row_major> fub;
  wmma::fill_fragment(fc, 0);
  wmma::load_matrix_sync(fua, ua, 8);
  wmma::load_matrix_sync(fub, ub, 32);
  wmma::mma_sync(fc, fua, fub, fc);
  wmma::store_matrix_sync(uc, fc, 8, wmma::mem_col_major);
}

template <typename T> T *to_device(const std::vector<T> &h) {
  T *d;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <typename T> std::vector<T> to_host(const T *d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

int main() {
  int bad = 0;
  // 1. f16 GEMM, f32 accumulators: C = 2 * (A B + 0.5)
  std::vector<half> a(M * K), bt(N * K);      // bt: B stored column-major (B^T row-major)
  std::vector<float> fa(M * K), fb(K * N);
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++) { fa[i * K + k] = (float)((i * 3 + k) % 7 - 3); a[i * K + k] = __float2half(fa[i * K + k]); }
  for (int k = 0; k < K; k++)
    for (int j = 0; j < N; j++) { fb[k * N + j] = (float)((k + 2 * j) % 5 - 2); bt[j * K + k] = __float2half(fb[k * N + j]); }
  half *da = to_device(a), *db = to_device(bt);
  float *dc;
  CHECK(cudaMalloc(&dc, M * N * sizeof(float)));
  gemm_f16<<<(M / 16) * (N / 16) / 4, 128>>>(da, db, dc);
  CHECK_LAUNCH();
  std::vector<float> c = to_host(dc, M * N);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float ref = 0.5f;
      for (int k = 0; k < K; k++) ref += fa[i * K + k] * fb[k * N + j];
      if (c[i * N + j] != 2.0f * ref) {
        if (bad < 5) printf("gemm_f16 (%d,%d): %g != %g\n", i, j, c[i * N + j], 2.0f * ref);
        bad++;
      }
    }
  // 2. m32n8k16, f16 accumulators, column-major inputs, C from memory (row-major)
  std::vector<half> a2(32 * 16), b2(16 * 8), c2(32 * 8);
  std::vector<float> ra2(32 * 16), rb2(16 * 8), rc2(32 * 8);
  for (int i = 0; i < 32; i++)
    for (int k = 0; k < 16; k++) { ra2[i * 16 + k] = (float)((i + k) % 3 - 1); a2[k * 32 + i] = __float2half(ra2[i * 16 + k]); }
  for (int k = 0; k < 16; k++)
    for (int j = 0; j < 8; j++) { rb2[k * 8 + j] = (float)((k * j) % 4); b2[j * 16 + k] = __float2half(rb2[k * 8 + j]); }
  for (int i = 0; i < 32 * 8; i++) { rc2[i] = (float)(i % 9); c2[i] = __float2half(rc2[i]); }
  half *da2 = to_device(a2), *db2 = to_device(b2), *dc2 = to_device(c2);
  mma_f16_acc<<<1, 32>>>(da2, db2, dc2);
  CHECK_LAUNCH();
  std::vector<half> c2out = to_host(dc2, 32 * 8);
  for (int i = 0; i < 32; i++)
    for (int j = 0; j < 8; j++) {
      float ref = rc2[i * 8 + j];
      for (int k = 0; k < 16; k++) ref += ra2[i * 16 + k] * rb2[k * 8 + j];
      if (__half2float(c2out[i * 8 + j]) != ref) {
        if (bad < 5) printf("mma_f16_acc (%d,%d): %g != %g\n", i, j, __half2float(c2out[i * 8 + j]), ref);
        bad++;
      }
    }
  // 3. m8n32k16 integers: s8 x s8 + 7 (row/row, from shared memory), u8 x u8 (col/row, stored col-major)
  std::vector<signed char> a3(8 * 16), b3(16 * 32);
  std::vector<unsigned char> ua3(8 * 16), ub3(16 * 32);   // ua3 column-major
  for (int i = 0; i < 8; i++)
    for (int k = 0; k < 16; k++) { a3[i * 16 + k] = (signed char)((i * 37 + k * 11) % 255 - 127); ua3[k * 8 + i] = (unsigned char)((i * 29 + k * 5) % 256); }
  for (int k = 0; k < 16; k++)
    for (int j = 0; j < 32; j++) { b3[k * 32 + j] = (signed char)((k * 13 + j * 7) % 255 - 127); ub3[k * 32 + j] = (unsigned char)((k * 17 + j * 3) % 256); }
  signed char *da3 = to_device(a3), *db3 = to_device(b3);
  unsigned char *dua3 = to_device(ua3), *dub3 = to_device(ub3);
  int *dc3, *duc3;
  CHECK(cudaMalloc(&dc3, 8 * 32 * sizeof(int)));
  CHECK(cudaMalloc(&duc3, 8 * 32 * sizeof(int)));
  mma_int8<<<1, 32>>>(da3, db3, dua3, dub3, dc3, duc3);
  CHECK_LAUNCH();
  std::vector<int> c3 = to_host(dc3, 8 * 32), uc3 = to_host(duc3, 8 * 32);
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 32; j++) {
      int ref = 7, uref = 0;
      for (int k = 0; k < 16; k++) {
        ref += a3[i * 16 + k] * b3[k * 32 + j];
        uref += ua3[k * 8 + i] * ub3[k * 32 + j];
      }
      if (c3[i * 32 + j] != ref || uc3[j * 8 + i] != uref) {
        if (bad < 5) printf("mma_int8 (%d,%d): %d/%d != %d/%d\n", i, j, c3[i * 32 + j], uc3[j * 8 + i], ref, uref);
        bad++;
      }
    }
  printf("gemm c[0]=%g c[%d]=%g\n", c[0], M * N - 1, c[M * N - 1]);
  return report("wmma_gemm", bad);
}
