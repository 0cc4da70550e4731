#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <mma.h>
#include <cuda/barrier>
namespace cg = cooperative_groups;
using namespace nvcuda;
__global__ void __cluster_dims__(2, 1, 1) clus(int *out) {
    cg::cluster_group cl = cg::this_cluster();
    __shared__ int s[32];
    s[threadIdx.x % 32] = threadIdx.x;
    cl.sync();
    int *peer = cl.map_shared_rank(s, (cl.block_rank() + 1) % 2);
    out[blockIdx.x * blockDim.x + threadIdx.x] = peer[threadIdx.x % 32] + cl.block_rank();
}
__global__ void bf(__nv_bfloat16 *a, float *o) {
    __nv_bfloat162 v = *(__nv_bfloat162 *)a;
    v = __hmul2(v, v);
    o[threadIdx.x] = __bfloat162float(v.x) + __low2float(v);
}
__global__ void wm(const half *a, const half *b, float *c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
__global__ void grid(int *o) {
    cg::grid_group g = cg::this_grid();
    o[g.thread_rank()] = 1;
    g.sync();
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    bar.arrive_and_wait();
    o[0] += __reduce_add_sync(0xffffffff, o[1]);
}
