// prefix_scan: inclusive prefix sum of 3,000 ints in three kernels:
//  1. blockScan: Hillis-Steele scan of each 256-element block in double-buffered shared
//     memory (log2(256) steps, __syncthreads() between them), writes the block total;
//  2. blockScan again on the block totals (one block);
//  3. addOffsets: adds the scanned total of the preceding blocks to every element.
// Compared exactly with the CPU scan.
#include <vector>
#include "check.h"

#define BLOCK 256

__global__ void blockScan(const int *in, int *out, int *blockSums, int n) {
  __shared__ int buf[2][BLOCK];
  int tid = threadIdx.x;
  int i = blockIdx.x * BLOCK + tid;
  int src = 0;
  buf[src][tid] = (i < n) ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < BLOCK; offset <<= 1) {
    int v = buf[src][tid];
    if (tid >= offset) v += buf[src][tid - offset];
    buf[1 - src][tid] = v;
    src = 1 - src;
    __syncthreads();
  }
  if (i < n) out[i] = buf[src][tid];
  if (blockSums != nullptr && tid == BLOCK - 1) blockSums[blockIdx.x] = buf[src][tid];
}

__global__ void addOffsets(int *data, const int *scannedSums, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (blockIdx.x > 0 && i < n) data[i] += scannedSums[blockIdx.x - 1];
}

int main() {
  const int n = 3000;
  const int blocks = (n + BLOCK - 1) / BLOCK;
  std::vector<int> h(n), out(n), ref(n);
  for (int i = 0; i < n; i++) h[i] = (i * 13) % 17 - 8;
  int run = 0;
  for (int i = 0; i < n; i++) ref[i] = (run += h[i]);

  int *din, *dout, *dsums, *dscanned;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMalloc(&dsums, blocks * sizeof(int)));
  CHECK(cudaMalloc(&dscanned, blocks * sizeof(int)));
  CHECK(cudaMemcpy(din, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  blockScan<<<blocks, BLOCK>>>(din, dout, dsums, n);
  CHECK_LAUNCH();
  blockScan<<<1, BLOCK>>>(dsums, dscanned, nullptr, blocks);
  CHECK_LAUNCH();
  addOffsets<<<blocks, BLOCK>>>(dout, dscanned, n);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; i++) {
    if (out[i] != ref[i]) {
      if (bad < 5) printf("mismatch at %d: %d != %d\n", i, out[i], ref[i]);
      bad++;
    }
  }
  printf("last=%d\n", out[n - 1]);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dsums));
  CHECK(cudaFree(dscanned));
  return report("prefix_scan", bad);
}
