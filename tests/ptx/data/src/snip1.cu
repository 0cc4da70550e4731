#include <cstdio>
#include <cuda_fp16.h>
__device__ int garr[4] = {1, 2, 3, 4};
__device__ int *gptr = &garr[2];
__device__ int *gptr0 = garr;
__constant__ float ctab[3] = {1.5f, -2.0f, 0.25f};
__constant__ double cd = 3.0;
struct S { int a; int *p; };
__device__ S sval = {7, garr};
__device__ __noinline__ int helper(int x, float y) { return x * 2 + (int)y; }
template <typename T> __global__ void tmpl(T *out, T v) { out[threadIdx.x] = v + (T)threadIdx.x; }
template __global__ void tmpl<float>(float *, float);
template __global__ void tmpl<double>(double *, double);
__global__ void misc(int *out, float *f, __half *h, int n) {
    extern __shared__ int dyn[];
    int t = threadIdx.x;
    dyn[t] = t;
    __syncthreads();
    int local[16];
    for (int i = 0; i < 16; i++) local[i] = i * t;
    int v = local[n & 15] + helper(t, f[t]);
    v += __shfl_xor_sync(0xffffffff, v, 1);
    v += __shfl_down_sync(0xffffffff, v, 2);
    atomicAdd(out, v);
    atomicCAS(out + 1, 0, v);
    atomicMax(out + 2, v);
    float fv = atomicAdd(f, 1.0f);
    __half hv = __hadd(h[t], __float2half(fv));
    h[t] = hv;
    if (__any_sync(0xffffffff, v > 3)) out[3] = __ballot_sync(0xffffffff, v & 1);
    out[4] = *gptr + sval.a + (int)ctab[t % 3] + (int)cd;
    if (t == 0) printf("hello %d %f\n", v, (double)fv);
}
struct Big { int a[8]; double d; };
__global__ void bigparam(Big b, char c, short s, int *out) { out[0] = b.a[3] + c + s + (int)b.d; }
