// constant_mem: a 16-tap FIR filter whose coefficients and a scale factor live in
// __constant__ memory, uploaded with cudaMemcpyToSymbol (the scale with a byte offset into a
// __constant__ struct). The coefficients are then replaced and the kernel rerun, so a
// simulator that caches stale constant data fails. Exact integer compare.
#include <cstddef>
#include <vector>
#include "check.h"

#define TAPS 16

struct Params {
  int bias;
  int scale;
};

__constant__ int coeff[TAPS];
__constant__ Params params;

__global__ void fir(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int acc = params.bias;
  for (int t = 0; t < TAPS; t++) {
    int j = i - t;
    if (j >= 0) acc += coeff[t] * in[j];
  }
  out[i] = acc * params.scale;
}

static int checkRun(const std::vector<int> &in, const std::vector<int> &out, const int *c,
                    int bias, int scale) {
  int bad = 0;
  for (int i = 0; i < (int)in.size(); i++) {
    int acc = bias;
    for (int t = 0; t < TAPS; t++)
      if (i - t >= 0) acc += c[t] * in[i - t];
    if (out[i] != acc * scale) {
      if (bad < 5) printf("mismatch at %d: %d != %d\n", i, out[i], acc * scale);
      bad++;
    }
  }
  return bad;
}

int main() {
  const int n = 1000;
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; i++) in[i] = (i * 31) % 23 - 11;
  int c1[TAPS], c2[TAPS];
  for (int t = 0; t < TAPS; t++) {
    c1[t] = t - 7;
    c2[t] = 3 * (t % 5) - 4;
  }
  int *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  Params p = {5, 1};
  CHECK(cudaMemcpyToSymbol(params, &p, sizeof(p)));
  CHECK(cudaMemcpyToSymbol(coeff, c1, sizeof(c1)));
  fir<<<(n + 127) / 128, 128>>>(din, dout, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = checkRun(in, out, c1, 5, 1);

  // Second run: new coefficients, and only the scale field rewritten through an offset.
  int scale = 3;
  CHECK(cudaMemcpyToSymbol(coeff, c2, sizeof(c2)));
  CHECK(cudaMemcpyToSymbol(params, &scale, sizeof(int), offsetof(Params, scale)));
  fir<<<(n + 127) / 128, 128>>>(din, dout, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  bad += checkRun(in, out, c2, 5, 3);

  // Read the constant bank back: it must hold exactly what was written.
  int back[TAPS];
  CHECK(cudaMemcpyFromSymbol(back, coeff, sizeof(back)));
  for (int t = 0; t < TAPS; t++) bad += (back[t] != c2[t]);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  return report("constant_mem", bad);
}
