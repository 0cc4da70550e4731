#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
typedef int (*binop)(int, int);
__device__ int add_op(int a, int b) { return a + b; }
__device__ int mul_op(int a, int b) { return a * b; }
__device__ binop ops[2] = {add_op, mul_op};
__device__ float2 f2tab[2] = {{1.0f, 2.0f}, {3.0f, 4.0f}};
__constant__ int cgrid[2][3] = {{1, 2, 3}, {4, 5, 6}};
__global__ void __launch_bounds__(256, 2) indirect(int *out, int sel) {
    binop f = ops[sel & 1];
    out[threadIdx.x] = f(threadIdx.x, 3) + cgrid[sel & 1][threadIdx.x % 3] + (int)f2tab[sel & 1].y;
}
__global__ void __launch_bounds__(128) pipelined(const float4 *in, float4 *out, int n) {
    __shared__ float4 buf[128];
    __pipeline_memcpy_async(&buf[threadIdx.x], &in[blockIdx.x * 128 + threadIdx.x], sizeof(float4));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    float4 v = buf[127 - threadIdx.x];
    if (n > 3) { v.x += __shfl_sync(0xffffffff, v.y, 3); }
    out[blockIdx.x * 128 + threadIdx.x] = v;
}
__global__ void coop(int *out) {
    cg::thread_block tb = cg::this_thread_block();
    cg::thread_block_tile<32> w = cg::tiled_partition<32>(tb);
    int v = w.thread_rank();
    for (int o = 16; o > 0; o /= 2) v += w.shfl_down(v, o);
    tb.sync();
    if (w.thread_rank() == 0) atomicAdd(out, v);
    unsigned long long c = clock64();
    if (c == 12345) out[1] = __popc(v) + __clz(v) + __brev(v);
}
__global__ void sw(int *out, int k) {
    int r;
    switch (k & 7) {
        case 0: r = 11; break; case 1: r = 22; break; case 2: r = 37; break; case 3: r = 41; break;
        case 4: r = 53; break; case 5: r = 67; break; case 6: r = 79; break; default: r = 83;
    }
    out[threadIdx.x] = r * threadIdx.x;
    if (threadIdx.x > 40) return;
    out[threadIdx.x + 1] = __float_as_int(__int_as_float(k) * 2.5f);
    __trap();
}
