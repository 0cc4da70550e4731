// CUDA dynamic parallelism (device-side launches), as CUDA 12+ defines it: a kernel launches
// child grids with <<<>>>; a grid is complete only once its children are, so work queued after
// it on the stream sees everything they wrote.  Built with -rdc=true -lcudadevrt.
//  * a binary tree of depth 4: every inner node (one 32-thread CTA) writes its value and has two
//    lanes each launch a child (inner nodes, then 4-thread leaves; one leaf of each pair goes to
//    cudaStreamFireAndForget); 15 device-side launches, three levels deep;
//  * a tail launch: 4 CTAs write partial sums, CTA 0 launches the total into
//    cudaStreamTailLaunch, which runs after the whole grid;
//  * verify<<<>>> on the host stream after both checks the tree on the device.
#include "check.h"

#define LEAF_THREADS 4
#define NODES 31          // heap numbering: node n has children 2n+1, 2n+2; leaves 15..30

__global__ void leaf(int *out, int node) { out[node * LEAF_THREADS + threadIdx.x] = node * 10 + threadIdx.x; }

__global__ void inner(int *out, int node, int depth) {
  if (threadIdx.x == 0) out[node * LEAF_THREADS] = node * 10;
  if (threadIdx.x < 2) {
    int child = node * 2 + 1 + threadIdx.x;
    if (depth > 1)
      inner<<<1, 32>>>(out, child, depth - 1);
    else if (threadIdx.x == 0)
      leaf<<<1, LEAF_THREADS>>>(out, child);
    else
      leaf<<<1, LEAF_THREADS, 0, cudaStreamFireAndForget>>>(out, child);
  }
}

__global__ void total(const int *part, int n, int *result) {
  int s = 0;
  for (int i = 0; i < n; i++) s += part[i];
  *result = s;
}

__global__ void partials(const int *in, int *part, int *result) {
  __shared__ int s;
  if (threadIdx.x == 0) s = 0;
  __syncthreads();
  atomicAdd(&s, in[blockIdx.x * blockDim.x + threadIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0) {
    part[blockIdx.x] = s;
    if (blockIdx.x == 0) total<<<1, 1, 0, cudaStreamTailLaunch>>>(part, gridDim.x, result);
  }
}

__global__ void verify(const int *out, int *bad) {
  int n = 0;
  for (int node = 0; node < NODES; node++) {
    bool is_leaf = node >= NODES / 2;
    for (int t = 0; t < (is_leaf ? LEAF_THREADS : 1); t++) n += out[node * LEAF_THREADS + t] != node * 10 + t;
  }
  *bad = n;
}

int main() {
  int *out, *in, *part, *result, *bad;
  CHECK(cudaMalloc(&out, NODES * LEAF_THREADS * sizeof(int)));
  CHECK(cudaMalloc(&in, 4 * 64 * sizeof(int)));
  CHECK(cudaMalloc(&part, 4 * sizeof(int)));
  CHECK(cudaMalloc(&result, sizeof(int)));
  CHECK(cudaMalloc(&bad, sizeof(int)));
  CHECK(cudaMemset(out, 0xff, NODES * LEAF_THREADS * sizeof(int)));
  int h_in[256], expect = 0;
  for (int i = 0; i < 256; i++) expect += h_in[i] = i % 17 - 5;
  CHECK(cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
  inner<<<1, 32>>>(out, 0, 4);
  CHECK_LAUNCH();
  partials<<<4, 64>>>(in, part, result);
  CHECK_LAUNCH();
  verify<<<1, 1>>>(out, bad);
  CHECK_LAUNCH();
  int h_out[NODES * LEAF_THREADS], h_bad = -1, h_result = 0;
  CHECK(cudaMemcpy(&h_bad, bad, sizeof h_bad, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&h_result, result, sizeof h_result, cudaMemcpyDeviceToHost));
  int mismatches = h_bad;
  for (int node = 0; node < NODES; node++) {
    bool is_leaf = node >= NODES / 2;
    for (int t = 0; t < LEAF_THREADS; t++) {
      int want = t == 0 || is_leaf ? node * 10 + t : -1;
      mismatches += h_out[node * LEAF_THREADS + t] != want;
    }
  }
  mismatches += h_result != expect;
  printf("tree: %d device-side mismatches; tail-launched total %d (expected %d)\n", h_bad, h_result, expect);
  return report("cdp_tree", mismatches);
}
