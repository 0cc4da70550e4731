// bit_intrinsics: integer intrinsics that map to single PTX instructions: __brev, __byte_perm,
// __funnelshift_l/_r, __ffs, __ffsll, __clz, __popc, __mul24, __umulhi, __mulhi, __sad,
// __dp4a, __vabsdiffu4, __hadd (integer average), __rhadd, plus 128-bit vector loads/stores
// (int4) and __ldg. Exact compare with bit-by-bit CPU models.
#include <cstdint>
#include <vector>
#include "check.h"

#define NO 16

__global__ void bits(const int4 *in, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int4 v = __ldg(&in[i]);
  unsigned a = (unsigned)v.x, b = (unsigned)v.y, c = (unsigned)v.z;
  unsigned *o = out + NO * i;
  o[0] = __brev(a);
  o[1] = __byte_perm(a, b, 0x7531u);
  o[2] = __funnelshift_l(a, b, c & 63);
  o[3] = __funnelshift_r(a, b, c & 63);
  o[4] = (unsigned)__ffs((int)(a & 0xfff000u));
  o[5] = (unsigned)__ffsll(((long long)b << 32) & ~0xffffffffull);
  o[6] = (unsigned)__clz((int)(a >> (c & 31)));
  o[7] = (unsigned)__popc(a ^ b);
  o[8] = (unsigned)__mul24((int)(a & 0xffffff) - 0x800000, (int)(b & 0xffffff));
  o[9] = __umulhi(a, b);
  o[10] = (unsigned)__mulhi((int)a, (int)b);
  o[11] = __sad((int)a, (int)b, c & 0xff);
  o[12] = (unsigned)__dp4a((int)a, (int)b, (int)(c & 0xffff));
  o[13] = __vabsdiffu4(a, b);
  o[14] = (unsigned)__hadd((int)a, (int)b);
  o[15] = (unsigned)__rhadd((int)a, (int)b);
  int4 w = make_int4(v.w, v.z, v.y, v.x);
  ((int4 *)(out + NO * n))[i] = w;
}

static unsigned brev(unsigned x) {
  unsigned r = 0;
  for (int k = 0; k < 32; k++) r |= ((x >> k) & 1u) << (31 - k);
  return r;
}
static unsigned byte_perm(unsigned x, unsigned y, unsigned s) {
  uint64_t t = ((uint64_t)y << 32) | x;
  unsigned r = 0;
  for (int k = 0; k < 4; k++) r |= (unsigned)((t >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k);
  return r;
}
static int ffs32(unsigned x) { return x ? __builtin_ctz(x) + 1 : 0; }
static int ffs64(uint64_t x) { return x ? __builtin_ctzll(x) + 1 : 0; }
static int clz32(unsigned x) { return x ? __builtin_clz(x) : 32; }
static int sext24(unsigned x) { return (int)(x << 8) >> 8; }

int main() {
  const int n = 256;
  std::vector<int4> in(n);
  unsigned s = 99u;
  auto next = [&]() { s = s * 1664525u + 1013904223u; return s; };
  for (int i = 0; i < n; i++) in[i] = make_int4((int)next(), (int)next(), (int)next(), (int)next());
  int4 *din;
  unsigned *dout;
  CHECK(cudaMalloc(&din, n * sizeof(int4)));
  CHECK(cudaMalloc(&dout, (NO + 4) * n * sizeof(unsigned)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int4), cudaMemcpyHostToDevice));
  bits<<<n / 64, 64>>>(din, dout, n);
  CHECK_LAUNCH();
  std::vector<unsigned> out((NO + 4) * n);
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; i++) {
    unsigned a = (unsigned)in[i].x, b = (unsigned)in[i].y, c = (unsigned)in[i].z;
    uint64_t ab = ((uint64_t)b << 32) | a;
    unsigned shc = (c & 63) & 31;  // __funnelshift_l/_r wrap the amount (the _lc/_rc forms clamp)
    unsigned fl = (unsigned)((ab << shc) >> 32), fr = (unsigned)(ab >> shc);
    int m1 = sext24((a & 0xffffff) - 0x800000), m2 = sext24(b & 0xffffff);
    unsigned sad = (unsigned)((int)a > (int)b ? (int64_t)(int)a - (int)b : (int64_t)(int)b - (int)a) + (c & 0xff);
    int dp = (int)(c & 0xffff);
    unsigned vd = 0;
    for (int k = 0; k < 4; k++) {
      int x = (int8_t)(a >> (8 * k)), y = (int8_t)(b >> (8 * k));
      dp += x * y;
      int ua = (a >> (8 * k)) & 0xff, ub = (b >> (8 * k)) & 0xff;
      vd |= (unsigned)(ua > ub ? ua - ub : ub - ua) << (8 * k);
    }
    int64_t sum = (int64_t)(int)a + (int)b;
    unsigned ref[NO] = {brev(a), byte_perm(a, b, 0x7531u), fl, fr, (unsigned)ffs32(a & 0xfff000u),
                        (unsigned)ffs64(((uint64_t)b << 32)), (unsigned)clz32(a >> (c & 31)), (unsigned)__builtin_popcount(a ^ b),
                        (unsigned)((int64_t)m1 * m2), (unsigned)(((uint64_t)a * b) >> 32), (unsigned)(((int64_t)(int)a * (int)b) >> 32),
                        sad, (unsigned)dp, vd, (unsigned)(int)(sum >> 1), (unsigned)(int)((sum + 1) >> 1)};
    for (int k = 0; k < NO; k++) {
      if (out[NO * i + k] != ref[k]) {
        if (bad < 8) printf("i=%d op %d: 0x%08x != 0x%08x\n", i, k, out[NO * i + k], ref[k]);
        bad++;
      }
    }
    const unsigned *w = &out[NO * n + 4 * i];
    bad += (w[0] != (unsigned)in[i].w) + (w[1] != c) + (w[2] != b) + (w[3] != a);
  }
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  return report("bit_intrinsics", bad);
}
