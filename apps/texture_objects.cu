// Texture objects: tex1Dfetch on linear memory, tex2D on a CUDA array with every address mode
// (wrap, clamp, mirror, border) and both filter modes, normalised and unnormalised
// coordinates, an 8-bit RGBA array read as normalised float with bilinear filtering, tex2Dgather
// and a pitch-2D resource.  The CPU reference implements the CUDA programming guide's
// "Texture Fetching" formulas (linear filtering with 9-bit fixed-point weights).
#include <cmath>
#include <cstring>
#include <vector>
#include "check.h"

static const int W = 13, H = 7, NS = 64;

__global__ void fetch1d(cudaTextureObject_t t, int n, float *out, int4 *outi, cudaTextureObject_t ti) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n + 4) {                       // 4 past the end: tex1Dfetch returns 0 there
    out[i] = tex1Dfetch<float>(t, i - 2);
    outi[i] = tex1Dfetch<int4>(ti, i - 2);
  }
}

__global__ void sample2d(cudaTextureObject_t t, const float2 *xy, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(t, xy[i].x, xy[i].y);
}

__global__ void sample_rgba(cudaTextureObject_t t, const float2 *xy, float4 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float4>(t, xy[i].x, xy[i].y);
}

__global__ void gather2d(cudaTextureObject_t t, const float2 *xy, float4 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2Dgather<float4>(t, xy[i].x, xy[i].y, 0);
}

// ---- CPU reference (programming guide, appendix "Texture Fetching") ----
static int addr(int i, int n, int mode, bool norm, bool *border) {
  *border = false;
  if (!norm && (mode == cudaAddressModeWrap || mode == cudaAddressModeMirror)) mode = cudaAddressModeClamp;
  switch (mode) {
    case cudaAddressModeWrap: return ((i % n) + n) % n;
    case cudaAddressModeMirror: { int m = ((i % (2 * n)) + 2 * n) % (2 * n); return m < n ? m : 2 * n - 1 - m; }
    case cudaAddressModeBorder: if (i < 0 || i >= n) { *border = true; return 0; } return i;
    default: return i < 0 ? 0 : (i >= n ? n - 1 : i);
  }
}

static float texel(const std::vector<float> &img, int i, int j, int mode, bool norm, float bc) {
  bool bi, bj;
  int a = addr(i, W, mode, norm, &bi), b = addr(j, H, mode, norm, &bj);
  return (bi || bj) ? bc : img[b * W + a];
}

static float weight9(float f) { return (float)std::nearbyint(f * 256.0f) / 256.0f; }

static float ref2d(const std::vector<float> &img, float x, float y, int mode, bool linear, bool norm, float bc) {
  if (norm) { x = x * (float)W; y = y * (float)H; }
  if (!linear) return texel(img, (int)std::floor(x), (int)std::floor(y), mode, norm, bc);
  float xb = x - 0.5f, yb = y - 0.5f;
  int i = (int)std::floor(xb), j = (int)std::floor(yb);
  float a = weight9(xb - std::floor(xb)), b = weight9(yb - std::floor(yb));
  return (1 - a) * (1 - b) * texel(img, i, j, mode, norm, bc) + a * (1 - b) * texel(img, i + 1, j, mode, norm, bc) +
         (1 - a) * b * texel(img, i, j + 1, mode, norm, bc) + a * b * texel(img, i + 1, j + 1, mode, norm, bc);
}

static int close(float got, float want, float tol) { return std::fabs(got - want) <= tol; }

int main() {
  int bad = 0;
  // ---------------- 1D linear memory, tex1Dfetch (float and int4)
  const int N = 100;
  std::vector<float> lin(N);
  std::vector<int> lini(4 * N);
  for (int i = 0; i < N; i++) lin[i] = 0.25f * i - 7.0f;
  for (int i = 0; i < 4 * N; i++) lini[i] = i * 7 - 300;
  float *d_lin; int *d_lini; float *d_o1; int4 *d_o1i;
  CHECK(cudaMalloc(&d_lin, N * sizeof(float)));
  CHECK(cudaMalloc(&d_lini, 4 * N * sizeof(int)));
  CHECK(cudaMalloc(&d_o1, (N + 4) * sizeof(float)));
  CHECK(cudaMalloc(&d_o1i, (N + 4) * sizeof(int4)));
  CHECK(cudaMemcpy(d_lin, lin.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_lini, lini.data(), 4 * N * sizeof(int), cudaMemcpyHostToDevice));
  cudaResourceDesc rd; memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeLinear;
  rd.res.linear.devPtr = d_lin;
  rd.res.linear.desc = cudaCreateChannelDesc<float>();
  rd.res.linear.sizeInBytes = N * sizeof(float);
  cudaTextureDesc td; memset(&td, 0, sizeof td);
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t1 = 0, t1i = 0;
  CHECK(cudaCreateTextureObject(&t1, &rd, &td, nullptr));
  rd.res.linear.devPtr = d_lini;
  rd.res.linear.desc = cudaCreateChannelDesc<int4>();
  rd.res.linear.sizeInBytes = 4 * N * sizeof(int);
  CHECK(cudaCreateTextureObject(&t1i, &rd, &td, nullptr));
  cudaResourceDesc back;
  CHECK(cudaGetTextureObjectResourceDesc(&back, t1i));
  if (back.resType != cudaResourceTypeLinear || back.res.linear.devPtr != d_lini ||
      back.res.linear.desc.x != 32 || back.res.linear.desc.w != 32) { printf("resource desc mismatch\n"); bad++; }
  fetch1d<<<(N + 4 + 63) / 64, 64>>>(t1, N, d_o1, d_o1i, t1i);
  CHECK_LAUNCH();
  std::vector<float> o1(N + 4);
  std::vector<int> o1i(4 * (N + 4));
  CHECK(cudaMemcpy(o1.data(), d_o1, o1.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(o1i.data(), d_o1i, o1i.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < N + 4; i++) {
    int k = i - 2;
    bool in = k >= 0 && k < N;
    float want = in ? lin[k] : 0.0f;
    if (o1[i] != want) { if (bad < 10) printf("fetch1d[%d] = %g, want %g\n", k, o1[i], want); bad++; }
    for (int c = 0; c < 4; c++) {
      int wi = in ? lini[4 * k + c] : 0;
      if (o1i[4 * i + c] != wi) { if (bad < 10) printf("fetch1d int4[%d].%d = %d, want %d\n", k, c, o1i[4 * i + c], wi); bad++; }
    }
  }

  // ---------------- 2D float CUDA array: every address mode x filter x coordinate kind
  std::vector<float> img(W * H);
  for (int j = 0; j < H; j++)
    for (int i = 0; i < W; i++) img[j * W + i] = (float)((i * 37 + j * 101) % 53) * 0.5f - 6.0f;
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  CHECK(cudaMallocArray(&arr, &cf, W, H));
  CHECK(cudaMemcpy2DToArray(arr, 0, 0, img.data(), W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
  // round trip through the array
  std::vector<float> img_back(W * H);
  CHECK(cudaMemcpy2DFromArray(img_back.data(), W * sizeof(float), arr, 0, 0, W * sizeof(float), H, cudaMemcpyDeviceToHost));
  if (img_back != img) { printf("array round trip mismatch\n"); bad++; }

  std::vector<float2> xy_un(NS), xy_n(NS);
  for (int s = 0; s < NS; s++) {
    float u = -0.35f + 1.7f * (float)((s * 29) % NS) / NS, v = -0.4f + 1.8f * (float)((s * 13 + 5) % NS) / NS;
    xy_n[s] = make_float2(u, v);
    xy_un[s] = make_float2(u * W + 0.013f * s, v * H - 0.007f * s);
  }
  float2 *d_xy; float *d_o2;
  CHECK(cudaMalloc(&d_xy, NS * sizeof(float2)));
  CHECK(cudaMalloc(&d_o2, NS * sizeof(float)));
  const char *mode_names[] = {"wrap", "clamp", "mirror", "border"};
  for (int mode = 0; mode < 4; mode++)
    for (int linear = 0; linear < 2; linear++)
      for (int norm = 0; norm < 2; norm++) {
        cudaResourceDesc ra; memset(&ra, 0, sizeof ra);
        ra.resType = cudaResourceTypeArray;
        ra.res.array.array = arr;
        cudaTextureDesc ta; memset(&ta, 0, sizeof ta);
        ta.addressMode[0] = ta.addressMode[1] = (cudaTextureAddressMode)mode;
        ta.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
        ta.readMode = cudaReadModeElementType;
        ta.normalizedCoords = norm;
        ta.borderColor[0] = -11.5f;
        cudaTextureObject_t t2;
        CHECK(cudaCreateTextureObject(&t2, &ra, &ta, nullptr));
        const std::vector<float2> &xy = norm ? xy_n : xy_un;
        CHECK(cudaMemcpy(d_xy, xy.data(), NS * sizeof(float2), cudaMemcpyHostToDevice));
        sample2d<<<1, NS>>>(t2, d_xy, d_o2, NS);
        CHECK_LAUNCH();
        std::vector<float> o2(NS);
        CHECK(cudaMemcpy(o2.data(), d_o2, NS * sizeof(float), cudaMemcpyDeviceToHost));
        for (int s = 0; s < NS; s++) {
          float want = ref2d(img, xy[s].x, xy[s].y, mode, linear, norm, -11.5f);
          // point sampling is exact; filtered values may differ in the last bits of the sum
          if (!close(o2[s], want, linear ? 1e-4f : 0.0f)) {
            if (bad < 10) printf("%s %s %s (%g, %g): got %.9g want %.9g\n", mode_names[mode],
                                 linear ? "linear" : "point", norm ? "norm" : "unnorm", xy[s].x, xy[s].y, o2[s], want);
            bad++;
          }
        }
        CHECK(cudaDestroyTextureObject(t2));
      }

  // ---------------- uchar4 array, normalised-float read, bilinear, wrap (normalised coords)
  std::vector<uchar4> rgba(W * H);
  for (int p = 0; p < W * H; p++) rgba[p] = make_uchar4(p * 3 % 256, 255 - p % 256, p * 11 % 256, 128);
  cudaChannelFormatDesc c4 = cudaCreateChannelDesc<uchar4>();
  cudaArray_t arr4;
  CHECK(cudaMallocArray(&arr4, &c4, W, H));
  CHECK(cudaMemcpy2DToArray(arr4, 0, 0, rgba.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
  cudaResourceDesc r4; memset(&r4, 0, sizeof r4);
  r4.resType = cudaResourceTypeArray;
  r4.res.array.array = arr4;
  cudaTextureDesc t4d; memset(&t4d, 0, sizeof t4d);
  t4d.addressMode[0] = t4d.addressMode[1] = cudaAddressModeWrap;
  t4d.filterMode = cudaFilterModeLinear;
  t4d.readMode = cudaReadModeNormalizedFloat;
  t4d.normalizedCoords = 1;
  cudaTextureObject_t t4;
  CHECK(cudaCreateTextureObject(&t4, &r4, &t4d, nullptr));
  float4 *d_o4;
  CHECK(cudaMalloc(&d_o4, NS * sizeof(float4)));
  CHECK(cudaMemcpy(d_xy, xy_n.data(), NS * sizeof(float2), cudaMemcpyHostToDevice));
  sample_rgba<<<1, NS>>>(t4, d_xy, d_o4, NS);
  CHECK_LAUNCH();
  std::vector<float4> o4(NS);
  CHECK(cudaMemcpy(o4.data(), d_o4, NS * sizeof(float4), cudaMemcpyDeviceToHost));
  for (int ch = 0; ch < 4; ch++) {
    std::vector<float> plane(W * H);
    for (int p = 0; p < W * H; p++) {
      const unsigned char *px = &rgba[p].x;
      plane[p] = px[ch] / 255.0f;
    }
    for (int s = 0; s < NS; s++) {
      float want = ref2d(plane, xy_n[s].x, xy_n[s].y, cudaAddressModeWrap, true, true, 0.0f);
      float got = (&o4[s].x)[ch];
      if (!close(got, want, 1e-5f)) {
        if (bad < 10) printf("rgba ch%d (%g, %g): got %.9g want %.9g\n", ch, xy_n[s].x, xy_n[s].y, got, want);
        bad++;
      }
    }
  }

  // ---------------- tex2Dgather (component 0) on the float array, clamp, unnormalised
  {
    cudaResourceDesc ra; memset(&ra, 0, sizeof ra);
    ra.resType = cudaResourceTypeArray;
    ra.res.array.array = arr;
    cudaTextureDesc ta; memset(&ta, 0, sizeof ta);
    ta.addressMode[0] = ta.addressMode[1] = cudaAddressModeClamp;
    ta.filterMode = cudaFilterModePoint;
    cudaTextureObject_t tg;
    CHECK(cudaCreateTextureObject(&tg, &ra, &ta, nullptr));
    CHECK(cudaMemcpy(d_xy, xy_un.data(), NS * sizeof(float2), cudaMemcpyHostToDevice));
    gather2d<<<1, NS>>>(tg, d_xy, d_o4, NS);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(o4.data(), d_o4, NS * sizeof(float4), cudaMemcpyDeviceToHost));
    for (int s = 0; s < NS; s++) {
      int i = (int)std::floor(xy_un[s].x - 0.5f), j = (int)std::floor(xy_un[s].y - 0.5f);
      float want[4] = {texel(img, i, j + 1, 1, false, 0), texel(img, i + 1, j + 1, 1, false, 0),
                       texel(img, i + 1, j, 1, false, 0), texel(img, i, j, 1, false, 0)};
      for (int c = 0; c < 4; c++)
        if ((&o4[s].x)[c] != want[c]) {
          if (bad < 10) printf("gather (%g, %g).%d: got %g want %g\n", xy_un[s].x, xy_un[s].y, c, (&o4[s].x)[c], want[c]);
          bad++;
        }
    }
    CHECK(cudaDestroyTextureObject(tg));
  }

  // ---------------- pitch-2D resource over cudaMallocPitch memory, point sampling, clamp
  {
    float *d_p; size_t pitch;
    CHECK(cudaMallocPitch((void **)&d_p, &pitch, W * sizeof(float), H));
    CHECK(cudaMemcpy2D(d_p, pitch, img.data(), W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
    cudaResourceDesc rp; memset(&rp, 0, sizeof rp);
    rp.resType = cudaResourceTypePitch2D;
    rp.res.pitch2D.devPtr = d_p;
    rp.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    rp.res.pitch2D.width = W;
    rp.res.pitch2D.height = H;
    rp.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc tp; memset(&tp, 0, sizeof tp);
    tp.addressMode[0] = tp.addressMode[1] = cudaAddressModeClamp;
    cudaTextureObject_t tpo;
    CHECK(cudaCreateTextureObject(&tpo, &rp, &tp, nullptr));
    sample2d<<<1, NS>>>(tpo, d_xy, d_o2, NS);
    CHECK_LAUNCH();
    std::vector<float> o2(NS);
    CHECK(cudaMemcpy(o2.data(), d_o2, NS * sizeof(float), cudaMemcpyDeviceToHost));
    for (int s = 0; s < NS; s++) {
      float want = ref2d(img, xy_un[s].x, xy_un[s].y, cudaAddressModeClamp, false, false, 0);
      if (o2[s] != want) { if (bad < 10) printf("pitch2D (%g, %g): got %g want %g\n", xy_un[s].x, xy_un[s].y, o2[s], want); bad++; }
    }
    CHECK(cudaDestroyTextureObject(tpo));
    CHECK(cudaFree(d_p));
  }

  CHECK(cudaDestroyTextureObject(t1));
  CHECK(cudaDestroyTextureObject(t1i));
  CHECK(cudaDestroyTextureObject(t4));
  CHECK(cudaFreeArray(arr));
  CHECK(cudaFreeArray(arr4));
  CHECK(cudaFree(d_lin)); CHECK(cudaFree(d_lini)); CHECK(cudaFree(d_o1)); CHECK(cudaFree(d_o1i));
  CHECK(cudaFree(d_xy)); CHECK(cudaFree(d_o2)); CHECK(cudaFree(d_o4));
  return report("texture_objects", bad);
}
