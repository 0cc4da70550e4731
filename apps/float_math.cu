// float_math: single-precision math library and conversions on 256 inputs in [-8, 8):
// sinf, cosf, tanf, expf, logf (of |x|+0.5), powf, atan2f, erff, cbrtf, fmodf, rsqrtf, and the
// fast intrinsics __sinf, __expf, __fdividef; rounding functions floorf/ceilf/truncf/rintf/
// roundf and float->int conversions __float2int_rn/_rz/_rd/_ru compared exactly; the library
// functions within 2e-6 relative (CUDA's single-precision functions are within 1-4 ulp),
// the intrinsics within 2e-3 absolute + relative. Double-precision CPU reference.
#include <cmath>
#include <vector>
#include "check.h"

#define NF 20

__global__ void fmath(const float *x, float *out, int *iout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i], a = fabsf(v) + 0.5f;
  float *o = out + NF * i;
  o[0] = sinf(v);
  o[1] = cosf(v);
  o[2] = tanf(v * 0.19f);
  o[3] = expf(v * 0.5f);
  o[4] = logf(a);
  o[5] = powf(a, 1.3f);
  o[6] = atan2f(v, 1.5f - v * 0.25f);
  o[7] = erff(v * 0.4f);
  o[8] = cbrtf(v);
  o[9] = fmodf(v * 3.7f, 1.3f);
  o[10] = rsqrtf(a);
  o[11] = __sinf(v);
  o[12] = __expf(v * 0.5f);
  o[13] = __fdividef(v, a);
  o[14] = floorf(v * 1.3f);
  o[15] = ceilf(v * 1.3f);
  o[16] = truncf(v * 1.3f);
  o[17] = rintf(v * 1.3f);
  o[18] = roundf(v * 1.3f);
  o[19] = sqrtf(a);
  iout[4 * i + 0] = __float2int_rn(v * 2.6f);
  iout[4 * i + 1] = __float2int_rz(v * 2.6f);
  iout[4 * i + 2] = __float2int_rd(v * 2.6f);
  iout[4 * i + 3] = __float2int_ru(v * 2.6f);
}

int main() {
  const int n = 256;
  std::vector<float> x(n), out(NF * n);
  std::vector<int> iout(4 * n);
  for (int i = 0; i < n; i++) x[i] = -8.0f + 0.0625f * i + 0.01f;
  float *dx, *dout;
  int *di;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dout, NF * n * sizeof(float)));
  CHECK(cudaMalloc(&di, 4 * n * sizeof(int)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  fmath<<<n / 64, 64>>>(dx, dout, di, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, NF * n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(iout.data(), di, 4 * n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; i++) {
    float v = x[i], a = fabsf(v) + 0.5f;
    double ref[NF] = {sin((double)v), cos((double)v), tan((double)(v * 0.19f)), exp((double)(v * 0.5f)),
                      log((double)a), pow((double)a, (double)1.3f), atan2((double)v, (double)(1.5f - v * 0.25f)),
                      erf((double)(v * 0.4f)), cbrt((double)v), (double)fmodf(v * 3.7f, 1.3f), 1.0 / sqrt((double)a),
                      sin((double)v), exp((double)(v * 0.5f)), (double)v / a, floorf(v * 1.3f), ceilf(v * 1.3f),
                      truncf(v * 1.3f), rintf(v * 1.3f), roundf(v * 1.3f), sqrtf(a)};
    for (int k = 0; k < NF; k++) {
      double got = out[NF * i + k];
      bool exact = (k == 9) || (k >= 14);
      double tol = exact ? 0.0 : (k >= 11 && k <= 13) ? 2e-3 : 2e-6;
      double lim = exact ? 0.0 : tol * (fabs(ref[k]) > 1.0 ? fabs(ref[k]) : 1.0);
      if (!(fabs(got - ref[k]) <= lim)) {
        if (bad < 8) printf("x=%.9g field %d: %.9g vs %.9g\n", v, k, got, ref[k]);
        bad++;
      }
    }
    float s = v * 2.6f;
    int refI[4] = {(int)rintf(s), (int)truncf(s), (int)floorf(s), (int)ceilf(s)};
    for (int k = 0; k < 4; k++) {
      if (iout[4 * i + k] != refI[k]) {
        if (bad < 8) printf("x=%.9g conversion %d: %d vs %d\n", v, k, iout[4 * i + k], refI[k]);
        bad++;
      }
    }
  }
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(di));
  return report("float_math", bad);
}
