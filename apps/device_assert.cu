// device_assert: a device-side assert() that fails in one thread. The failing thread's
// message is printed, cudaDeviceSynchronize returns cudaErrorAssert, and the error is
// sticky (a later cudaMemcpy returns it too). Threads that pass the assert are unaffected
// up to the fault. Exit 0 = the simulator reported exactly that.
#include <cassert>
#include "check.h"

__global__ void checkPositive(const int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(v[i] > 0);
}

int main() {
  const int n = 64;
  int h[n];
  for (int i = 0; i < n; i++) h[i] = (i == 37) ? -5 : i + 1;
  int *d;
  CHECK(cudaMalloc(&d, sizeof(h)));
  CHECK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
  checkPositive<<<2, 32>>>(d, n);
  int failures = 0;
  cudaError_t launch = cudaGetLastError();
  if (launch != cudaSuccess) {
    printf("launch returned %s\n", cudaGetErrorName(launch));
    failures++;
  }
  cudaError_t sync = cudaDeviceSynchronize();
  printf("cudaDeviceSynchronize: %s\n", cudaGetErrorName(sync));
  if (sync != cudaErrorAssert) failures++;
  cudaError_t copy = cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  printf("cudaMemcpy after the assert: %s\n", cudaGetErrorName(copy));
  if (copy != cudaErrorAssert) failures++;
  return report("device_assert", failures);
}
