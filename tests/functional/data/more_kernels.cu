// Test kernels for tests/functional/test_engine_more.py (PTX: nvcc -ptx -O2 -arch=sm_80 more_kernels.cu).
#include <cooperative_groups.h>
#include <cuda_fp16.h>
namespace cg = cooperative_groups;
extern "C" {
__global__ void cgreduce(const double *in, double *out) {
  cg::thread_block b = cg::this_thread_block();
  cg::thread_block_tile<32> t = cg::tiled_partition<32>(b);
  double v = in[b.group_index().x * b.size() + b.thread_rank()];
  for (int o = 16; o > 0; o >>= 1) v += t.shfl_down(v, o);
  extern __shared__ double sm[];
  if (t.thread_rank() == 0) sm[t.meta_group_rank()] = v;
  b.sync();
  if (b.thread_rank() == 0) { double s = 0; for (int i = 0; i < t.meta_group_size(); ++i) s += sm[i]; atomicAdd(out, s); }
}
__global__ void halfk(const __half *a, const __half *b, __half *c, float *f) {
  int i = threadIdx.x;
  __half2 x = __halves2half2(a[i], b[i]);
  __half2 y = __hmul2(x, x);
  c[i] = __hadd(__low2half(y), __high2half(y));
  f[i] = __half2float(c[i]) + __popc(i) + __clz(i + 1) + __brev(i) % 7 + __ffs(i);
}
__global__ void bits(const unsigned *in, unsigned *out) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned x = in[i];
  unsigned long long w = (unsigned long long)x * 0x9E3779B97F4A7C15ull;
  out[i] = __funnelshift_l(x, x >> 3, i & 31) ^ (unsigned)(w >> 32) ^ __byte_perm(x, i, 0x3210 + (i & 0x111)) ^ __umulhi(x, 2654435761u) ^ (x / (i + 1)) ^ (unsigned)(__sad(x, i, 3));
}
__global__ void ldgk(const float4 * __restrict__ in, float4 *out, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) { float4 v = __ldg(&in[i]); out[i] = make_float4(v.w, v.z, v.y, v.x * 2.f); }
  __syncwarp();
}
__device__ __noinline__ int rsum(int n, int salt) {
  int a[8];
  for (int i = 0; i < 8; ++i) a[i] = n * 10 + i + salt;
  if (n == 0) return a[salt & 7];
  int r = rsum(n - 1, salt + 1);
  return r + a[(salt * 3) & 7];
}
__global__ void recursive_local(int *out) { out[threadIdx.x] = rsum(threadIdx.x % 6, threadIdx.x); }
typedef int (*binop)(int, int);
__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int op_sub(int a, int b) { return a - b; }
__device__ binop op_table[3] = {op_add, op_mul, op_sub};
__global__ void fnptr(int *out, int which) {
  int t = threadIdx.x;
  binop f = op_table[(t + which) % 3];       // lanes of one warp call different functions
  binop g = (t & 1) ? op_add : op_mul;       // addresses taken in code
  out[t] = f(t, 3) + g(t, 2);
}
}
