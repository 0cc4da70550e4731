// double_math: FP64 arithmetic and libdevice math on 512 inputs in [0.05, 12.8]:
// sqrt (exactly rounded, compared bit-exactly), exp, log, sin, pow, plus fma and division.
// The transcendental results are compared with the host libm within 1e-13 relative
// (CUDA's double-precision functions are accurate to a couple of ulp).
#include <cmath>
#include <vector>
#include "check.h"

__global__ void dmath(const double *x, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i];
  out[6 * i + 0] = sqrt(v);
  out[6 * i + 1] = exp(v * 0.5);
  out[6 * i + 2] = log(v);
  out[6 * i + 3] = sin(v * 3.0);
  out[6 * i + 4] = pow(v, 1.75);
  out[6 * i + 5] = fma(v, v, 1.0) / (v + 2.0);
}

static bool close(double got, double ref, double tol) {
  double scale = fabs(ref) > 1e-3 ? fabs(ref) : 1e-3;
  return fabs(got - ref) <= tol * scale;
}

int main() {
  const int n = 512;
  std::vector<double> x(n), out(6 * n);
  for (int i = 0; i < n; i++) x[i] = 0.05 + 0.025 * i;
  double *dx, *dout;
  CHECK(cudaMalloc(&dx, n * sizeof(double)));
  CHECK(cudaMalloc(&dout, 6 * n * sizeof(double)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  dmath<<<(n + 127) / 128, 128>>>(dx, dout, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, 6 * n * sizeof(double), cudaMemcpyDeviceToHost));
  int bad = 0;
  const char *names[6] = {"sqrt", "exp", "log", "sin", "pow", "fma/div"};
  for (int i = 0; i < n; i++) {
    double v = x[i];
    double ref[6] = {sqrt(v), exp(v * 0.5), log(v), sin(v * 3.0), pow(v, 1.75),
                     fma(v, v, 1.0) / (v + 2.0)};
    for (int k = 0; k < 6; k++) {
      bool ok = (k == 0 || k == 5) ? out[6 * i + k] == ref[k] : close(out[6 * i + k], ref[k], 1e-13);
      if (!ok) {
        if (bad < 5) printf("%s(%.17g): %.17g != %.17g\n", names[k], v, out[6 * i + k], ref[k]);
        bad++;
      }
    }
  }
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dout));
  return report("double_math", bad);
}
