// runtime_misc: less common runtime paths a real program uses: zero-copy mapped host memory
// (cudaHostAlloc(cudaHostAllocMapped) + cudaHostGetDevicePointer, a kernel writing host
// memory directly), the stream-ordered allocator (cudaMallocAsync / cudaFreeAsync),
// cudaMemsetAsync, cudaMemcpyToSymbolAsync, cudaMemcpyDefault (unified addressing decides
// the direction), and a kernel opting in to 64 KB of dynamic shared memory with
// cudaFuncSetAttribute where the device allows it (sharedMemPerBlockOptin >= 64 KB, cc 7.x and
// later; elsewhere the opt-in and a launch asking for 64 KB must fail with
// cudaErrorInvalidValue, and the program says "bigSmem: 64 KB refused"). Exact compare.
#include <vector>
#include "check.h"

__constant__ int offsetC;

__global__ void addOffset(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + offsetC;
}

__global__ void bigSmem(int *out) {
  extern __shared__ int s[];  // 16,384 ints = 64 KB
  for (int k = threadIdx.x; k < 16384; k += blockDim.x) s[k] = k;
  __syncthreads();
  int acc = 0;
  for (int k = threadIdx.x; k < 16384; k += blockDim.x) acc += s[16383 - k];
  out[threadIdx.x] = acc;
}

int main() {
  int bad = 0;
  const int n = 1000;
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));

  // zero-copy: the kernel writes straight into mapped host memory.
  int *hostMapped, *devAlias, *din;
  CHECK(cudaHostAlloc(&hostMapped, n * sizeof(int), cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer(&devAlias, hostMapped, 0));
  CHECK(cudaMallocAsync(&din, n * sizeof(int), s));
  CHECK(cudaMemsetAsync(din, 0, n * sizeof(int), s));
  int off = 41;
  CHECK(cudaMemcpyToSymbolAsync(offsetC, &off, sizeof(int), 0, cudaMemcpyHostToDevice, s));
  addOffset<<<(n + 127) / 128, 128, 0, s>>>(din, devAlias, n);
  CHECK_LAUNCH();
  CHECK(cudaFreeAsync(din, s));
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; i++) bad += (hostMapped[i] != 41);

  // cudaMemcpyDefault in both directions.
  std::vector<int> h(n), back(n);
  for (int i = 0; i < n; i++) h[i] = i * 3;
  int *d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyDefault));
  CHECK(cudaMemcpy(back.data(), d, n * sizeof(int), cudaMemcpyDefault));
  for (int i = 0; i < n; i++) bad += (back[i] != i * 3);

  // 64 KB of dynamic shared memory needs the opt-in attribute, and a GPU that allows it.
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.sharedMemPerBlockOptin < 64 * 1024) {
    cudaError_t e1 = cudaFuncSetAttribute(bigSmem, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
    bigSmem<<<1, 128, 64 * 1024>>>(d);
    cudaError_t e2 = cudaGetLastError();
    printf("bigSmem: 64 KB refused (%s, %s; the device allows %zu bytes)\n", cudaGetErrorName(e1),
           cudaGetErrorName(e2), prop.sharedMemPerBlockOptin);
    bad += (e1 != cudaErrorInvalidValue) + (e2 != cudaErrorInvalidValue);
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(hostMapped));
    CHECK(cudaStreamDestroy(s));
    return report("runtime_misc", bad);
  }
  CHECK(cudaFuncSetAttribute(bigSmem, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
  bigSmem<<<1, 128, 64 * 1024>>>(d);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(back.data(), d, 128 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 128; t++) {
    int ref = 0;
    for (int k = t; k < 16384; k += 128) ref += 16383 - k;
    if (back[t] != ref) {
      if (bad < 5) printf("bigSmem %d: %d != %d\n", t, back[t], ref);
      bad++;
    }
  }
  CHECK(cudaFree(d));
  CHECK(cudaFreeHost(hostMapped));
  CHECK(cudaStreamDestroy(s));
  return report("runtime_misc", bad);
}
