// half_precision: FP16 through cuda_fp16.h: float<->half conversions (round to nearest
// even), __hadd/__hmul/__hfma/__hsub on __half, __hadd2/__hmul2 on __half2, comparisons
// (__hlt, __hmax), and half->float widening. The host computes the same operations with
// cuda_fp16.h's host implementations (each result rounded to half), so the compare is exact.
#include <cuda_fp16.h>
#include <vector>
#include "check.h"

__global__ void halfOps(const float *x, unsigned short *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half a = __float2half(x[i]);
  __half b = __float2half(x[n - 1 - i] * 0.37f);
  __half r[6];
  r[0] = __hadd(a, b);
  r[1] = __hmul(a, b);
  r[2] = __hfma(a, b, __float2half(0.5f));
  r[3] = __hsub(a, b);
  r[4] = __hlt(a, b) ? a : b;
  r[5] = __hmax(a, b);
  __half2 p = __halves2half2(a, b);
  __half2 q = __hmul2(__hadd2(p, p), p);
  for (int k = 0; k < 6; k++) out[8 * i + k] = __half_as_ushort(r[k]);
  out[8 * i + 6] = __half_as_ushort(__low2half(q));
  out[8 * i + 7] = __half_as_ushort(__high2half(q));
}

static unsigned short bits(__half h) { return __half_as_ushort(h); }
static __half rh(float f) { return __float2half(f); }   // round a float to half
static __half dh(double d) { return __double2half(d); }  // round an exact result to half

int main() {
  const int n = 200;
  std::vector<float> x(n);
  std::vector<unsigned short> out(8 * n);
  for (int i = 0; i < n; i++) x[i] = (i - 100) * 0.173f + 0.001f * (i % 7);
  float *dx;
  unsigned short *dout;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dout, 8 * n * sizeof(unsigned short)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  halfOps<<<(n + 63) / 64, 64>>>(dx, dout, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, 8 * n * sizeof(unsigned short), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; i++) {
    __half a = rh(x[i]), b = rh(x[n - 1 - i] * 0.37f);
    float fa = __half2float(a), fb = __half2float(b);
    // Each half operation is computed exactly in double (halves have 11-bit significands),
    // then rounded once to half, as the hardware does.
    double da = fa, db = fb;
    __half twoA = dh(da + da), twoB = dh(db + db);
    unsigned short ref[8] = {bits(dh(da + db)), bits(dh(da * db)), bits(dh(da * db + 0.5)), bits(dh(da - db)),
                             bits(fa < fb ? a : b), bits(fa > fb ? a : b),
                             bits(dh((double)__half2float(twoA) * da)), bits(dh((double)__half2float(twoB) * db))};
    for (int k = 0; k < 8; k++) {
      if (out[8 * i + k] != ref[k]) {
        if (bad < 8) printf("i=%d field %d: 0x%04x != 0x%04x\n", i, k, out[8 * i + k], ref[k]);
        bad++;
      }
    }
  }
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dout));
  return report("half_precision", bad);
}
