// stencil_oob: a vertical 3-point stencil over a 128x64 int grid that, like a well-known
// benchmark, reads the row *before* its first row: thread (x, y = 0) loads in[-W + x], 512
// bytes before the first cudaMalloc block, and then discards the value (the top row uses its
// own centre instead). Real GPUs map device memory in 2 MiB pages, so the load succeeds and the
// program verifies; under memcheck (gpgpusim run --memcheck) each such load is reported, like
// compute-sanitizer reports it. Two launches, both reading the same input.
#include <vector>
#include "check.h"

#define W 128
#define H 64

__global__ void stencil(const int *in, int *out, int scale) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  int up = in[(y - 1) * W + x];  // y == 0: the row before the array
  int c = in[y * W + x];
  int down = y + 1 < H ? in[(y + 1) * W + x] : c;
  if (y == 0) up = c;
  out[y * W + x] = scale * (up + 2 * c + down);
}

int main() {
  std::vector<int> a(W * H), out(W * H);
  for (int i = 0; i < W * H; i++) a[i] = (i * 7919) % 1000 - 500;
  int *din, *dout;
  CHECK(cudaMalloc(&din, W * H * sizeof(int)));
  CHECK(cudaMalloc(&dout, W * H * sizeof(int)));
  CHECK(cudaMemcpy(din, a.data(), W * H * sizeof(int), cudaMemcpyHostToDevice));
  int failures = 0;
  for (int scale = 1; scale <= 2; scale++) {
    stencil<<<dim3(W / 32, H), 32>>>(din, dout, scale);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(out.data(), dout, W * H * sizeof(int), cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        int c = a[y * W + x];
        int up = y > 0 ? a[(y - 1) * W + x] : c;
        int down = y + 1 < H ? a[(y + 1) * W + x] : c;
        int want = scale * (up + 2 * c + down);
        if (out[y * W + x] != want) {
          if (failures < 5) printf("scale %d (%d,%d): got %d want %d\n", scale, x, y, out[y * W + x], want);
          failures++;
        }
      }
  }
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  return report("stencil_oob", failures);
}
