// stencil2d: a hotspot-style 2-D 5-point stencil on a 70x45 int grid, 8 iterations with
// ping-pong buffers. Each 16x8 block stages its tile plus a one-cell halo in shared memory
// (edge threads also load the halo; cells outside the grid clamp to the border), syncs,
// then computes. Exact integer compare with the CPU.
#include <vector>
#include "check.h"

#define BX 16
#define BY 8

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

int main() {
  const int W = 70, H = 45, iters = 8;
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
  for (int i = 0; i < W * H; i++) {
    if (out[i] != a[i]) {
      if (bad < 5) printf("cell (%d,%d): %d != %d\n", i % W, i / W, out[i], a[i]);
      bad++;
    }
  }
  CHECK(cudaFree(d0));
  CHECK(cudaFree(d1));
  return report("stencil2d", bad);
}
