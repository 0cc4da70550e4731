// reduction: sum of 10,000 ints two ways.
//  - reduceTree: shared-memory tree with __syncthreads() (block partial sums), then the same
//    kernel again on the partials with a single block;
//  - reduceShuffle: __shfl_down_sync within each warp, warp totals through shared memory,
//    first warp reduces them with shuffles again, one atomicAdd per block.
// Both totals and every block partial are compared exactly with the CPU.
#include <vector>
#include "check.h"

#define BLOCK 256

__global__ void reduceTree(const int *in, int *out, int n) {
  __shared__ int s[BLOCK];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x * 2 + tid;
  int v = 0;
  if (i < n) v += in[i];
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  s[tid] = v;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

__device__ int warpSum(int v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void reduceShuffle(const int *in, int *total, int n) {
  __shared__ int warpTotals[BLOCK / 32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = (i < n) ? in[i] : 0;
  v = warpSum(v);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warpTotals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = (lane < (int)(blockDim.x >> 5)) ? warpTotals[lane] : 0;
    v = warpSum(v);
    if (lane == 0) atomicAdd(total, v);
  }
}

int main() {
  const int n = 10000;
  std::vector<int> h(n);
  long long ref = 0;
  for (int i = 0; i < n; i++) {
    h[i] = (i * 37) % 101 - 50;
    ref += h[i];
  }
  const int blocksTree = (n + 2 * BLOCK - 1) / (2 * BLOCK);
  std::vector<int> partialRef(blocksTree, 0);
  for (int i = 0; i < n; i++) partialRef[i / (2 * BLOCK)] += h[i];

  int *din, *dpart, *dsum, *dshfl;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dpart, blocksTree * sizeof(int)));
  CHECK(cudaMalloc(&dsum, sizeof(int)));
  CHECK(cudaMalloc(&dshfl, sizeof(int)));
  CHECK(cudaMemcpy(din, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dshfl, 0, sizeof(int)));

  reduceTree<<<blocksTree, BLOCK>>>(din, dpart, n);
  CHECK_LAUNCH();
  std::vector<int> part(blocksTree);
  CHECK(cudaMemcpy(part.data(), dpart, blocksTree * sizeof(int), cudaMemcpyDeviceToHost));
  reduceTree<<<1, BLOCK>>>(dpart, dsum, blocksTree);
  CHECK_LAUNCH();
  reduceShuffle<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(din, dshfl, n);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  int treeSum = 0, shflSum = 0;
  CHECK(cudaMemcpy(&treeSum, dsum, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&shflSum, dshfl, sizeof(int), cudaMemcpyDeviceToHost));

  int bad = 0;
  for (int b = 0; b < blocksTree; b++) {
    if (part[b] != partialRef[b]) {
      if (bad < 5) printf("partial %d: %d != %d\n", b, part[b], partialRef[b]);
      bad++;
    }
  }
  if (treeSum != ref) { printf("tree sum %d != %lld\n", treeSum, ref); bad++; }
  if (shflSum != ref) { printf("shuffle sum %d != %lld\n", shflSum, ref); bad++; }
  printf("sum=%lld tree=%d shuffle=%d\n", ref, treeSum, shflSum);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dpart));
  CHECK(cudaFree(dsum));
  CHECK(cudaFree(dshfl));
  return report("reduction", bad);
}
