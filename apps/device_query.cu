// device_query: device properties and attributes as a program sizes its work from them:
// cudaGetDeviceCount, cudaGetDeviceProperties (name, SM count, warp size, limits),
// cudaDeviceGetAttribute agreeing with the properties, cudaMemGetInfo, cudaFuncGetAttributes
// and cudaOccupancyMaxActiveBlocksPerMultiprocessor for a kernel, and a grid sized as
// "SMs x blocks per SM" with a grid-stride loop. Prints "SMs=<n>" (tests/apps checks it
// matches the config's -gpgpu_n_clusters x -gpgpu_n_cores_per_cluster).
#include <vector>
#include "check.h"

__global__ void gridStride(int *d, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) d[i] = 2 * i + 1;
}

int main() {
  int bad = 0, count = 0, dev = -1;
  CHECK(cudaGetDeviceCount(&count));
  CHECK(cudaGetDevice(&dev));
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  printf("device 0 of %d: %s, cc %d.%d\n", count, p.name, p.major, p.minor);
  printf("SMs=%d warpSize=%d maxThreadsPerBlock=%d sharedMemPerBlock=%zu\n", p.multiProcessorCount,
         p.warpSize, p.maxThreadsPerBlock, p.sharedMemPerBlock);
  printf("regsPerBlock=%d maxThreadsDim=%dx%dx%d maxGridSize=%dx%dx%d sharedMemPerBlockOptin=%zu\n", p.regsPerBlock,
         p.maxThreadsDim[0], p.maxThreadsDim[1], p.maxThreadsDim[2], p.maxGridSize[0], p.maxGridSize[1],
         p.maxGridSize[2], p.sharedMemPerBlockOptin);
  printf("totalGlobalMem=%zu l2CacheSize=%d memoryBusWidth=%d\n", p.totalGlobalMem, p.l2CacheSize, p.memoryBusWidth);
  // The least any GPU of this compute capability offers (CUDA Programming Guide): cc 1.x has
  // 512-thread blocks, 16 KB of shared memory per block and 2-D grids.
  const bool cc1 = p.major < 2;
  const int minThreads = cc1 ? 512 : 1024;
  const size_t minSmem = (cc1 ? 16 : 48) * 1024;
  if (count < 1 || dev != 0 || p.warpSize != 32 || p.multiProcessorCount < 1 || p.maxThreadsPerBlock < minThreads ||
      p.sharedMemPerBlock < minSmem || p.sharedMemPerBlockOptin < p.sharedMemPerBlock || p.totalGlobalMem == 0 ||
      p.maxGridSize[0] < 65535 || p.maxGridSize[2] < 1 || p.maxThreadsDim[0] < minThreads ||
      p.regsPerBlock < 8192 || p.regsPerBlock > p.regsPerMultiprocessor) {
    printf("implausible properties\n");
    bad++;
  }
  // cudaDeviceGetAttribute agrees with cudaGetDeviceProperties
  const struct { cudaDeviceAttr a; long long v; } same[] = {
      {cudaDevAttrMultiProcessorCount, p.multiProcessorCount}, {cudaDevAttrWarpSize, p.warpSize},
      {cudaDevAttrMaxThreadsPerBlock, p.maxThreadsPerBlock}, {cudaDevAttrMaxBlockDimX, p.maxThreadsDim[0]},
      {cudaDevAttrMaxBlockDimZ, p.maxThreadsDim[2]}, {cudaDevAttrMaxGridDimX, p.maxGridSize[0]},
      {cudaDevAttrMaxGridDimZ, p.maxGridSize[2]}, {cudaDevAttrMaxRegistersPerBlock, p.regsPerBlock},
      {cudaDevAttrMaxSharedMemoryPerBlock, (long long)p.sharedMemPerBlock},
      {cudaDevAttrMaxSharedMemoryPerBlockOptin, (long long)p.sharedMemPerBlockOptin},
      {cudaDevAttrL2CacheSize, p.l2CacheSize}, {cudaDevAttrComputeCapabilityMajor, p.major},
      {cudaDevAttrComputeCapabilityMinor, p.minor}};
  for (const auto &s : same) {
    int attr = 0;
    CHECK(cudaDeviceGetAttribute(&attr, s.a, 0));
    if (attr != s.v) {
      printf("attribute %d = %d, property says %lld\n", (int)s.a, attr, s.v);
      bad++;
    }
  }
  size_t freeB = 0, totalB = 0;
  CHECK(cudaMemGetInfo(&freeB, &totalB));
  if (totalB != p.totalGlobalMem || freeB > totalB) {
    printf("cudaMemGetInfo: free %zu total %zu\n", freeB, totalB);
    bad++;
  }
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, gridStride));
  int perSM = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, gridStride, 256, 0));
  printf("gridStride: %d regs, max %d threads/block, %d blocks/SM at 256 threads\n", fa.numRegs,
         fa.maxThreadsPerBlock, perSM);
  if (fa.numRegs < 1 || fa.maxThreadsPerBlock < 256 || perSM < 1) bad++;

  const int n = 100000;
  int *d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  gridStride<<<p.multiProcessorCount * perSM, 256>>>(d, n);
  CHECK_LAUNCH();
  std::vector<int> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) bad += (h[i] != 2 * i + 1);
  CHECK(cudaFree(d));
  return report("device_query", bad);
}
