// Surface objects: a 2-D float CUDA array (cudaArraySurfaceLoadStore) filled with
// cudaMemcpy2DToArray, a 3x3 box blur from one surface into another with surf2Dread /
// surf2Dwrite (x in bytes), boundary modes zero and clamp on reads past the edge, a uchar4
// surface written in place, and the results read back with cudaMemcpy2DFromArray.
#include <vector>
#include "check.h"

static const int W = 37, H = 19;

__global__ void blur(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
      float v;
      if ((x + y) & 1) surf2Dread(&v, in, (x + dx) * 4, y + dy, cudaBoundaryModeZero);
      else surf2Dread(&v, in, (x + dx) * 4, y + dy, cudaBoundaryModeClamp);
      s += v;
    }
  surf2Dwrite(s, out, x * 4, y);
}

__global__ void invert(cudaSurfaceObject_t s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  uchar4 c;
  surf2Dread(&c, s, x * 4, y);
  surf2Dwrite(make_uchar4(255 - c.x, c.y ^ 0x5a, c.z, (unsigned char)(x + y)), s, x * 4, y);
}

static float at(const std::vector<float> &a, int x, int y, bool clamp) {
  if (clamp) {
    x = x < 0 ? 0 : (x >= W ? W - 1 : x);
    y = y < 0 ? 0 : (y >= H ? H - 1 : y);
  } else if (x < 0 || x >= W || y < 0 || y >= H) {
    return 0.f;
  }
  return a[y * W + x];
}

int main() {
  int bad = 0;
  std::vector<float> img(W * H);
  for (int i = 0; i < W * H; i++) img[i] = (float)((i * 29) % 41) - 10.f;
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  cudaArray_t a_in, a_out;
  CHECK(cudaMallocArray(&a_in, &cf, W, H, cudaArraySurfaceLoadStore));
  CHECK(cudaMallocArray(&a_out, &cf, W, H, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(a_in, 0, 0, img.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a_in;
  cudaSurfaceObject_t s_in, s_out;
  CHECK(cudaCreateSurfaceObject(&s_in, &rd));
  rd.res.array.array = a_out;
  CHECK(cudaCreateSurfaceObject(&s_out, &rd));
  dim3 block(16, 8), grid((W + 15) / 16, (H + 7) / 8);
  blur<<<grid, block>>>(s_in, s_out, W, H);
  CHECK_LAUNCH();
  std::vector<float> out(W * H);
  CHECK(cudaMemcpy2DFromArray(out.data(), W * 4, a_out, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      bool clamp = !((x + y) & 1);
      float s = 0.f;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) s += at(img, x + dx, y + dy, clamp);
      if (out[y * W + x] != s) {
        if (bad < 10) printf("blur (%d, %d): got %g want %g\n", x, y, out[y * W + x], s);
        bad++;
      }
    }

  // uchar4 surface, read-modify-write in place; a sub-rectangle copied back
  std::vector<uchar4> px(W * H);
  for (int i = 0; i < W * H; i++) px[i] = make_uchar4(i % 256, (i * 7) % 256, (i * 13) % 256, 0);
  cudaChannelFormatDesc c4 = cudaCreateChannelDesc<uchar4>();
  cudaArray_t a4;
  CHECK(cudaMallocArray(&a4, &c4, W, H, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(a4, 0, 0, px.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
  rd.res.array.array = a4;
  cudaSurfaceObject_t s4;
  CHECK(cudaCreateSurfaceObject(&s4, &rd));
  invert<<<grid, block>>>(s4, W, H);
  CHECK_LAUNCH();
  const int X0 = 3, Y0 = 2, RW = 20, RH = 11;
  std::vector<uchar4> sub(RW * RH);
  CHECK(cudaMemcpy2DFromArray(sub.data(), RW * 4, a4, X0 * 4, Y0, RW * 4, RH, cudaMemcpyDeviceToHost));
  for (int y = 0; y < RH; y++)
    for (int x = 0; x < RW; x++) {
      const uchar4 &o = px[(y + Y0) * W + x + X0];
      const uchar4 &g = sub[y * RW + x];
      uchar4 w = make_uchar4(255 - o.x, o.y ^ 0x5a, o.z, (unsigned char)(x + X0 + y + Y0));
      if (g.x != w.x || g.y != w.y || g.z != w.z || g.w != w.w) {
        if (bad < 10) printf("invert (%d, %d): got %d,%d,%d,%d\n", x + X0, y + Y0, g.x, g.y, g.z, g.w);
        bad++;
      }
    }

  // a surface needs an array allocated with cudaArraySurfaceLoadStore
  cudaArray_t plain;
  CHECK(cudaMallocArray(&plain, &cf, 8, 8));
  rd.res.array.array = plain;
  cudaSurfaceObject_t s_bad;
  if (cudaCreateSurfaceObject(&s_bad, &rd) == cudaSuccess) { printf("surface on a plain array accepted\n"); bad++; }
  cudaGetLastError();

  CHECK(cudaDestroySurfaceObject(s_in));
  CHECK(cudaDestroySurfaceObject(s_out));
  CHECK(cudaDestroySurfaceObject(s4));
  CHECK(cudaFreeArray(a_in)); CHECK(cudaFreeArray(a_out)); CHECK(cudaFreeArray(a4)); CHECK(cudaFreeArray(plain));
  return report("surface_rw", bad);
}
