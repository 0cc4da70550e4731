// grid3d_pitch: 3-D launch geometry and pitched 2-D memory. A 3x2x2 grid of 8x4x2 blocks
// writes a linearised id computed from every built-in (threadIdx/blockIdx/blockDim/gridDim
// .x/.y/.z); a 2-D kernel transposes a 37x53 float matrix held in cudaMallocPitch memory,
// uploaded and downloaded with cudaMemcpy2D. Exact compare.
#include <vector>
#include "check.h"

__global__ void ids(int *out) {
  int bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
  int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  int X = gridDim.x * blockDim.x, Y = gridDim.y * blockDim.y;
  int x = bx * blockDim.x + tx, y = by * blockDim.y + ty, z = bz * blockDim.z + tz;
  int flat = (z * Y + y) * X + x;
  out[flat] = ((bz * gridDim.y + by) * gridDim.x + bx) * 1000 + (tz * blockDim.y + ty) * blockDim.x + tx;
}

__global__ void transpose(const float *in, size_t inPitch, float *out, size_t outPitch, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) {
    const float *src = (const float *)((const char *)in + r * inPitch);
    float *dst = (float *)((char *)out + c * outPitch);
    dst[r] = src[c] * 2.0f;
  }
}

int main() {
  int bad = 0;
  dim3 grid(3, 2, 2), block(8, 4, 2);
  const int X = 24, Y = 8, Z = 4, total = X * Y * Z;
  int *dids;
  CHECK(cudaMalloc(&dids, total * sizeof(int)));
  ids<<<grid, block>>>(dids);
  CHECK_LAUNCH();
  std::vector<int> h(total);
  CHECK(cudaMemcpy(h.data(), dids, total * sizeof(int), cudaMemcpyDeviceToHost));
  for (int z = 0; z < Z; z++)
    for (int y = 0; y < Y; y++)
      for (int x = 0; x < X; x++) {
        int bx = x / 8, tx = x % 8, by = y / 4, ty = y % 4, bz = z / 2, tz = z % 2;
        int ref = ((bz * 2 + by) * 3 + bx) * 1000 + (tz * 4 + ty) * 8 + tx;
        if (h[(z * Y + y) * X + x] != ref) {
          if (bad < 5) printf("id (%d,%d,%d): %d != %d\n", x, y, z, h[(z * Y + y) * X + x], ref);
          bad++;
        }
      }

  const int rows = 37, cols = 53;
  std::vector<float> m(rows * cols), t(cols * rows, -1.0f);
  for (int i = 0; i < rows * cols; i++) m[i] = (float)(i % 97) - 40.5f;
  float *din, *dout;
  size_t inPitch, outPitch;
  CHECK(cudaMallocPitch((void **)&din, &inPitch, cols * sizeof(float), rows));
  CHECK(cudaMallocPitch((void **)&dout, &outPitch, rows * sizeof(float), cols));
  if (inPitch < cols * sizeof(float) || outPitch < rows * sizeof(float)) {
    printf("pitch too small: %zu %zu\n", inPitch, outPitch);
    bad++;
  }
  CHECK(cudaMemcpy2D(din, inPitch, m.data(), cols * sizeof(float), cols * sizeof(float), rows,
                     cudaMemcpyHostToDevice));
  dim3 tb(16, 8), tg((cols + 15) / 16, (rows + 7) / 8);
  transpose<<<tg, tb>>>(din, inPitch, dout, outPitch, rows, cols);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy2D(t.data(), rows * sizeof(float), dout, outPitch, rows * sizeof(float), cols,
                     cudaMemcpyDeviceToHost));
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++)
      if (t[c * rows + r] != m[r * cols + c] * 2.0f) {
        if (bad < 5) printf("transpose (%d,%d): %f\n", r, c, t[c * rows + r]);
        bad++;
      }
  CHECK(cudaFree(dids));
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  return report("grid3d_pitch", bad);
}
