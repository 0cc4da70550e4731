// struct_by_value: kernels taking structs by value, so the parameter buffer layout
// (alignment padding, nested arrays, a pointer member, a 136-byte struct) must match the
// PTX .param layout. Exact compare.
#include "check.h"

struct Mixed {
  char tag;        // offset 0, then 7 bytes of padding
  double scale;    // offset 8
  short delta;     // offset 16
  int coeffs[3];   // offset 20
  float *out;      // offset 32
  unsigned char flags[3];
};

struct Big {
  long long words[16];
  int count;
};

__global__ void useMixed(Mixed m, int n) {
  int i = threadIdx.x;
  if (i < n)
    m.out[i] = (float)(m.scale * i) + m.coeffs[i % 3] + m.delta + m.tag + m.flags[i % 3];
}

__global__ void useBig(Big b, long long extra, long long *out) {
  int i = threadIdx.x;
  if (i < b.count) out[i] = b.words[i] * 3 + extra;
  if (i == 0) out[16] = b.count;
}

int main() {
  const int n = 48;
  float *dout;
  long long *dbig;
  CHECK(cudaMalloc(&dout, n * sizeof(float)));
  CHECK(cudaMalloc(&dbig, 17 * sizeof(long long)));
  Mixed m;
  m.tag = 'A';
  m.scale = 0.5;
  m.delta = -300;
  m.coeffs[0] = 10;
  m.coeffs[1] = 20;
  m.coeffs[2] = 30;
  m.out = dout;
  m.flags[0] = 1;
  m.flags[1] = 2;
  m.flags[2] = 200;
  useMixed<<<1, 64>>>(m, n);
  CHECK_LAUNCH();
  Big b;
  for (int k = 0; k < 16; k++) b.words[k] = (1LL << 40) + k * 1000003LL;
  b.count = 13;
  useBig<<<1, 32>>>(b, -7, dbig);
  CHECK_LAUNCH();
  float out[n];
  long long big[17];
  CHECK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(big, dbig, sizeof(big), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; i++) {
    float ref = (float)(m.scale * i) + m.coeffs[i % 3] + m.delta + m.tag + m.flags[i % 3];
    if (out[i] != ref) {
      if (bad < 5) printf("mixed %d: %f != %f\n", i, out[i], ref);
      bad++;
    }
  }
  for (int i = 0; i < 13; i++) bad += (big[i] != b.words[i] * 3 - 7);
  bad += (big[16] != 13);
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dbig));
  return report("struct_by_value", bad);
}
