// Test kernels for tests/functional (PTX generated with: nvcc -ptx -O2 -arch=sm_80 kernels.cu).
#include <cassert>
#include <cstdio>

extern "C" {

__global__ void divloop(int *out, const int *trip) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  int acc = 0;
  for (int i = 0; i < trip[t]; ++i) {
    if ((i + t) & 1) {
      if (t & 2) acc += 3; else acc ^= i;
    } else {
      acc += i * t;
    }
  }
  out[t] = acc;
}

__global__ void early_exit(int *out) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  if (t % 3 == 0) return;
  out[t] = t * 2;
}

__global__ void block_sum(const int *in, int *out) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void atomics(int *hist, const int *keys, int *olds, float *fsum, unsigned *cnt,
                        int *mx, unsigned long long *u64, int *shared_out) {
  __shared__ int sh[4];
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  if (threadIdx.x < 4) sh[threadIdx.x] = 0;
  __syncthreads();
  int k = keys[t];
  olds[t] = atomicAdd(&hist[k], 1);
  atomicAdd(fsum, 1.0f + (t % 4) * 0.25f);
  atomicMax(mx, (k * 7) % 13);
  atomicInc(cnt, 1000u);
  atomicAdd(u64, 1ull << 33);
  atomicAdd(&sh[k & 3], k);
  __syncthreads();
  if (threadIdx.x < 4) atomicAdd(&shared_out[threadIdx.x], sh[threadIdx.x]);
}

__global__ void warpops(int *out) {
  int lane = threadIdx.x & 31;
  int v = threadIdx.x * 10;
  int *o = out + threadIdx.x * 10;
  o[0] = __shfl_down_sync(0xffffffff, v, 3);
  o[1] = __shfl_up_sync(0xffffffff, v, 5, 16);
  o[2] = __shfl_xor_sync(0xffffffff, v, 7);
  o[3] = __shfl_sync(0xffffffff, v, 31 - lane, 8);
  o[4] = __ballot_sync(0xffffffff, lane & 1);
  o[5] = __any_sync(0xffffffff, lane == 5) + 2 * __all_sync(0xffffffff, lane < 40);
  int partial = -1;
  unsigned am = 0;
  if (lane < 16) {
    partial = __shfl_down_sync(0x0000ffff, v, 1, 16);
    am = __activemask();
  }
  o[6] = partial;
  o[7] = am;
  o[8] = __match_any_sync(0xffffffff, lane / 4);
  o[9] = __reduce_add_sync(0xffffffff, lane);
}

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ float axpy(float a, float x, float y) { return a * x + y; }

__global__ void calls(int *out, float *fo) {
  int t = threadIdx.x;
  out[t] = fib(t % 10);
  fo[t] = axpy(2.0f, (float)t, 1.0f);
}

__global__ void printer(int n) {
  if (threadIdx.x < n)
    printf("t=%d x=%5.2f s=%s c=%c u=%u lx=%llx %%\n", threadIdx.x, threadIdx.x * 0.5, "hi",
           'A' + threadIdx.x, 4000000000u, 0x123456789abcULL);
}

__global__ void oob(int *p) { p[threadIdx.x * 1000] = 1; }

__global__ void local_array(int *out, int k) {
  int a[16];
  for (int i = 0; i < 16; ++i) a[i] = i * threadIdx.x;
  out[threadIdx.x] = a[(threadIdx.x + k) & 15];
}

__global__ void heap(int *out) {
  int *p = (int *)malloc(4 * sizeof(int));
  for (int i = 0; i < 4; ++i) p[i] = threadIdx.x * i;
  out[threadIdx.x] = p[3] + (p != nullptr);
  free(p);
}

__global__ void asserter(const int *p) { assert(p[threadIdx.x] == 0); }

}
