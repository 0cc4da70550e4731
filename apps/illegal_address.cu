// illegal_address: a kernel stores through a pointer that is not in any allocation (passed
// in as a parameter, so the compiler cannot see it). The launch itself succeeds; the fault
// is reported by cudaDeviceSynchronize as cudaErrorIllegalAddress, and it is sticky: later
// calls (cudaMemcpy, cudaGetLastError) keep returning it. Exit status 0 means the simulator
// reported exactly that; any other outcome prints FAIL.
#include <cstdint>
#include "check.h"

__global__ void writeThrough(int *p, int v) {
  if (threadIdx.x == 0) p[threadIdx.x] = v;
}

int main() {
  int *good;
  CHECK(cudaMalloc(&good, 64 * sizeof(int)));
  int *bad = (int *)(uintptr_t)0x1000;  // far below any allocation
  writeThrough<<<1, 32>>>(bad, 42);
  int failures = 0;
  cudaError_t launch = cudaGetLastError();
  if (launch != cudaSuccess) {
    printf("launch returned %s, expected cudaSuccess\n", cudaGetErrorName(launch));
    failures++;
  }
  cudaError_t sync = cudaDeviceSynchronize();
  printf("cudaDeviceSynchronize: %s\n", cudaGetErrorName(sync));
  if (sync != cudaErrorIllegalAddress) failures++;
  int host[4];
  cudaError_t copy = cudaMemcpy(host, good, sizeof(host), cudaMemcpyDeviceToHost);
  printf("cudaMemcpy after the fault: %s\n", cudaGetErrorName(copy));
  if (copy != cudaErrorIllegalAddress) failures++;
  cudaError_t last = cudaGetLastError();
  if (last != cudaErrorIllegalAddress) {
    printf("cudaGetLastError returned %s\n", cudaGetErrorName(last));
    failures++;
  }
  return report("illegal_address", failures);
}
