// Exercises CUDA intrinsics so that nvcc emits many ALU forms; the .ptx files next to this are
// nvcc 13 output (nvcc -ptx intrinsics.cu; with -use_fast_math; with -arch=sm_90; bf16.cu with
// -arch=sm_90; fp8.cu with -arch=sm_90), kept as test fixtures.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void k(float *f, double *d, int *i, unsigned *u, long long *l, unsigned long long *ul, __half2 *h2, __half *h, __nv_bfloat16 *b, __nv_bfloat162 *b2, float x, double y, int n) {
  int t = threadIdx.x;
  f[0] = __fmaf_rz(x, f[1], f[2]); f[1] = __fmaf_rd(x, f[1], f[2]); f[2] = __fmaf_ru(x, f[2], f[3]);
  f[3] = __fadd_rz(x, f[4]); f[4] = __fmul_rd(x, f[5]); f[5] = __fdiv_ru(x, f[6]); f[6] = __fsqrt_rz(x);
  f[7] = __frcp_rn(x); f[8] = __fdividef(x, f[9]); f[9] = sinf(x) + cosf(x) + __sinf(x) + __cosf(x) + __expf(x) + __logf(x) + exp2f(x) + log2f(x) + rsqrtf(x) + tanhf(x);
  f[10] = fminf(x, f[11]) + fmaxf(x, f[12]) + copysignf(x, f[13]) + fabsf(f[14]) + truncf(x) + roundf(x) + rintf(x) + floorf(x) + ceilf(x) + __saturatef(x);
  f[11] = powf(x, f[12]) + sqrtf(x) + x / f[13] + erff(x) + atan2f(x, f[1]);
  d[0] = __dmul_rz(y, d[1]) + __dadd_ru(y, d[2]) + __fma_rd(y, d[3], d[4]) + sqrt(y) + 1.0 / y + y / d[5] + rsqrt(y) + exp(y) + log(y) + sin(y) + pow(y, d[6]) + fmin(y, d[7]) + trunc(y) + __drcp_rz(y) + __ddiv_rd(y, d[8]);
  i[0] = __popc(u[0]) + __clz(i[1]) + __ffs(i[2]) + __brev(u[3]) + __byte_perm(u[4], u[5], u[6]) + __funnelshift_l(u[7], u[8], u[9]) + __funnelshift_rc(u[7], u[8], u[9]);
  i[1] = __dp4a(i[2], i[3], i[4]) + __dp2a_lo(i[5], i[6], i[7]) + __mulhi(i[8], i[9]) + __umulhi(u[1], u[2]) + __mul24(i[3], i[4]) + __sad(i[5], i[6], u[7]) + abs(i[8]) + min(i[9], n) + max(u[9], u[8]) + __hadd(i[1], i[2]) + __rhadd(i[3], i[4]);
  l[0] = __mul64hi(l[1], l[2]) + __popcll(ul[3]) + __clzll(l[4]) + __ffsll(l[5]) + (l[6] / l[7]) + (l[8] % n) + __brevll(ul[9]);
  ul[0] = ul[1] / ul[2] + ul[3] % ul[4] + __umul64hi(ul[5], ul[6]);
  i[5] = (int)x + (int)y + (unsigned)f[15] + __float2int_rn(x) + __float2int_rd(x) + __float2uint_ru(x) + __double2int_rz(y) + (long long)x + __float2ll_rn(x);
  f[12] = (float)i[6] + (float)u[6] + (float)l[6] + (float)ul[6] + __int2float_rz(i[7]) + __uint2float_rd(u[8]) + __ll2float_ru(l[9]) + (float)y + __double2float_rz(y);
  d[1] = (double)i[6] + (double)l[7] + (double)ul[8] + __ll2double_rz(l[9]) + (double)x;
  h2[0] = __hadd2(h2[1], h2[2]); h2[1] = __hfma2(h2[2], h2[3], h2[4]); h2[2] = __hmul2(h2[1], h2[3]); h2[3] = __hmax2(h2[1], h2[0]); h2[4] = __hneg2(h2[1]); h2[5] = __habs2(h2[2]);
  h[0] = __hadd(h[1], h[2]) ; h[1] = __float2half(x); h[2] = __hfma(h[3], h[4], h[5]); h[3] = __float2half_rz(x) ; h[4] = hsqrt(h[5]); h[5] = hexp2(h[6]); h[6] = __hdiv(h[7], h[8]);
  f[13] = __half2float(h[7]) + __low2float(h2[6]) + __high2float(h2[7]);
  h2[6] = __floats2half2_rn(x, f[1]); h2[7] = __hmul2_sat(h2[1], h2[2]);
  bool bb = __hlt(h[0], h[1]) || __hbeq2(h2[0], h2[1]) || __hisnan(h[2]);
  b[0] = __float2bfloat16(x); b2[1] = __floats2bfloat162_rn(x, f[1]);
  f[14] = __bfloat162float(b[6]) + (bb ? 1.f : 0.f) + (isnan(x) ? 1.f : 0.f) + (isinf(y) ? 2.f : 0.f) + (isfinite(x) ? 3.f : 0.f) + (signbit(x) ? 4.f: 0.f);
  u[0] = __vabsdiffu4(u[1], u[2]) + __vadd2(u[3], u[4]) + __vmaxs4(u[5], u[6]);
  i[7] = __shfl_sync(0xffffffff, i[8], 3) + (t << n) + (t >> n) + ((unsigned)t >> n) + (l[0] << n);
  long long a64 = l[1]; a64 += l[2]; ul[7] = (unsigned long long)a64 * ul[8];
  u[9] = __bfloat16_as_ushort(b[7]) + __half_as_ushort(h[8]);
  f[15] = __int_as_float(i[9]) + __uint_as_float(__float_as_uint(x) & 0x7fffffff);
  d[2] = __hiloint2double(i[0], i[1]); i[0] = __double2hiint(y) + __double2loint(y); d[3] = __longlong_as_double(l[0]);
  atomicAdd(f, x); atomicAdd(d, y); atomicAdd(h2, h2[0]); atomicMax(i, n); atomicCAS(u, 1u, 2u); atomicInc(u, 5u); atomicExch(f + 3, x); atomicAnd(ul, 3ull); atomicAdd(b2, b2[0]);
}
