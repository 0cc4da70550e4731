// stencil W H ITERS: a 2-D 5-point integer stencil (hotspot style, shared-memory tile with a
// one-cell halo) run ITERS times with ping-pong buffers: one launch per iteration, the same
// grid every time.  Checked exactly against the CPU; prints a checksum of the result.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "../../apps/check.h"

#define BX 16
#define BY 16

__device__ __host__ inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

__global__ void stencil(const int *in, int *out, int W, int H) {
  __shared__ int tile[BY + 2][BX + 2];
  int x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
  int cx = clampi(x, 0, W - 1), cy = clampi(y, 0, H - 1);
  int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  tile[ty][tx] = in[cy * W + cx];
  if (threadIdx.x == 0) tile[ty][0] = in[cy * W + clampi(x - 1, 0, W - 1)];
  if (threadIdx.x == BX - 1) tile[ty][BX + 1] = in[cy * W + clampi(x + 1, 0, W - 1)];
  if (threadIdx.y == 0) tile[0][tx] = in[clampi(y - 1, 0, H - 1) * W + cx];
  if (threadIdx.y == BY - 1) tile[BY + 1][tx] = in[clampi(y + 1, 0, H - 1) * W + cx];
  __syncthreads();
  if (x < W && y < H) {
    int c = tile[ty][tx];
    out[y * W + x] = (4 * c + tile[ty - 1][tx] + tile[ty + 1][tx] + tile[ty][tx - 1] + tile[ty][tx + 1]) / 8 + (c & 1);
  }
}

int main(int argc, char **argv) {
  const int W = argc > 1 ? atoi(argv[1]) : 256, H = argc > 2 ? atoi(argv[2]) : 256;
  const int iters = argc > 3 ? atoi(argv[3]) : 200;
  std::vector<int> a(W * H), b(W * H), out(W * H);
  for (int i = 0; i < W * H; i++) a[i] = (i * 7919) % 1000;
  int *d0, *d1;
  CHECK(cudaMalloc(&d0, W * H * sizeof(int)));
  CHECK(cudaMalloc(&d1, W * H * sizeof(int)));
  CHECK(cudaMemcpy(d0, a.data(), W * H * sizeof(int), cudaMemcpyHostToDevice));
  dim3 block(BX, BY), grid((W + BX - 1) / BX, (H + BY - 1) / BY);
  for (int it = 0; it < iters; it++) {
    stencil<<<grid, block>>>(it % 2 ? d1 : d0, it % 2 ? d0 : d1, W, H);
    CHECK_LAUNCH();
  }
  CHECK(cudaMemcpy(out.data(), iters % 2 ? d1 : d0, W * H * sizeof(int), cudaMemcpyDeviceToHost));
  for (int it = 0; it < iters; it++) {
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        auto at = [&](int xx, int yy) { return a[clampi(yy, 0, H - 1) * W + clampi(xx, 0, W - 1)]; };
        int c = at(x, y);
        b[y * W + x] = (4 * c + at(x, y - 1) + at(x, y + 1) + at(x - 1, y) + at(x + 1, y)) / 8 + (c & 1);
      }
    a.swap(b);
  }
  int bad = 0;
  unsigned long long sum = 0;
  for (int i = 0; i < W * H; i++) {
    sum = sum * 31 + (unsigned)out[i];
    if (out[i] != a[i]) bad++;
  }
  printf("checksum %llu\n", sum);
  CHECK(cudaFree(d0));
  CHECK(cudaFree(d1));
  return report("stencil", bad);
}
