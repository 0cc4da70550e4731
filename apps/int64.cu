// int64: 64-bit integer arithmetic per thread: a 64-bit LCG (multiply with wrap-around),
// signed division and remainder, shifts across the 32-bit boundary, unsigned 64-bit
// high-product (__umul64hi), bit counting (__popcll, __clzll), min/max and a 64-bit
// atomicAdd. Exact compare with the same computation on the CPU.
#include <vector>
#include "check.h"

__host__ __device__ unsigned long long mix(unsigned long long seed, long long k) {
  unsigned long long x = seed;
  for (int r = 0; r < 6; r++) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    x ^= x >> 29;
  }
  long long s = (long long)(x >> 3) - (1LL << 59);
  long long q = s / (k + 3);
  long long m = s % (k + 7);
  unsigned long long sh = (x << 35) | (x >> 29);
  return (unsigned long long)q + (unsigned long long)m * 977ULL + sh;
}

__global__ void int64Kernel(const long long *in, unsigned long long *out,
                            unsigned long long *hi, int *bits, unsigned long long *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long v = mix((unsigned long long)in[i] * 0x9E3779B97F4A7C15ULL, in[i]);
  out[i] = v;
  hi[i] = __umul64hi(v, 0xD1B54A32D192ED03ULL);
  bits[i] = __popcll(v) * 100 + __clzll((long long)(v >> (i % 64)));
  long long a = (long long)v, b = in[i] * -123456789LL;
  out[n + i] = (unsigned long long)max(a, b) - (unsigned long long)min(a, b);
  atomicAdd(sum, v >> 20);
}

static unsigned long long mulhi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}

int main() {
  const int n = 300;
  std::vector<long long> in(n);
  for (int i = 0; i < n; i++) in[i] = (long long)i * 7919 - 1000;
  long long *din;
  unsigned long long *dout, *dhi, *dsum;
  int *dbits;
  CHECK(cudaMalloc(&din, n * sizeof(long long)));
  CHECK(cudaMalloc(&dout, 2 * n * sizeof(unsigned long long)));
  CHECK(cudaMalloc(&dhi, n * sizeof(unsigned long long)));
  CHECK(cudaMalloc(&dbits, n * sizeof(int)));
  CHECK(cudaMalloc(&dsum, sizeof(unsigned long long)));
  CHECK(cudaMemset(dsum, 0, sizeof(unsigned long long)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(long long), cudaMemcpyHostToDevice));
  int64Kernel<<<(n + 63) / 64, 64>>>(din, dout, dhi, dbits, dsum, n);
  CHECK_LAUNCH();
  std::vector<unsigned long long> out(2 * n), hi(n);
  std::vector<int> bits(n);
  unsigned long long sum = 0;
  CHECK(cudaMemcpy(out.data(), dout, 2 * n * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hi.data(), dhi, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(bits.data(), dbits, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&sum, dsum, sizeof(sum), cudaMemcpyDeviceToHost));
  int bad = 0;
  unsigned long long refSum = 0;
  for (int i = 0; i < n; i++) {
    unsigned long long v = mix((unsigned long long)in[i] * 0x9E3779B97F4A7C15ULL, in[i]);
    refSum += v >> 20;
    unsigned long long shifted = v >> (i % 64);
    int refBits = __builtin_popcountll(v) * 100 + (shifted ? __builtin_clzll(shifted) : 64);
    long long a = (long long)v, b = in[i] * -123456789LL;
    unsigned long long diff = (unsigned long long)(a > b ? a : b) - (unsigned long long)(a < b ? a : b);
    if (out[i] != v || hi[i] != mulhi(v, 0xD1B54A32D192ED03ULL) || bits[i] != refBits ||
        out[n + i] != diff) {
      if (bad < 5) printf("mismatch at %d: %llx vs %llx, bits %d vs %d\n", i, out[i], v, bits[i], refBits);
      bad++;
    }
  }
  if (sum != refSum) {
    printf("sum %llu != %llu\n", sum, refSum);
    bad++;
  }
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dhi));
  CHECK(cudaFree(dbits));
  CHECK(cudaFree(dsum));
  return report("int64", bad);
}
