// api_errors: runtime API misuse returns the documented, non-sticky error codes, and the
// context stays usable afterwards:
//  - a launch with 2048 threads per block, and one with gridDim.y = 70000, fail with
//    cudaErrorInvalidConfiguration, reported by cudaPeekAtLastError (not cleared) and then
//    cudaGetLastError (cleared: the next cudaGetLastError is cudaSuccess);
//  - cudaFree of a pointer that was never allocated -> cudaErrorInvalidValue;
//  - cudaMemcpy of more bytes than the device allocation holds -> cudaErrorInvalidValue;
//  - cudaSetDevice(number of devices) -> cudaErrorInvalidDevice;
//  - each failing call also sets the last error (cudaGetLastError returns then clears it);
//  - cudaGetErrorName / cudaGetErrorString of cudaErrorIllegalAddress;
// then a kernel still runs and its result is checked. Exit 0 = every code as expected.
#include <cstdint>
#include <cstring>
#include "check.h"

__global__ void fill(int *d, int v) { d[blockIdx.x * blockDim.x + threadIdx.x] = v; }

static int expect(const char *what, cudaError_t got, cudaError_t want) {
  printf("%s: %s\n", what, cudaGetErrorName(got));
  if (got != want) {
    printf("  expected %s\n", cudaGetErrorName(want));
    return 1;
  }
  return 0;
}

int main() {
  int failures = 0;
  int *d;
  CHECK(cudaMalloc(&d, 256 * sizeof(int)));

  fill<<<1, 2048>>>(d, 1);
  failures += expect("2048 threads per block (peek)", cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
  failures += expect("2048 threads per block (get)", cudaGetLastError(), cudaErrorInvalidConfiguration);
  failures += expect("after clearing", cudaGetLastError(), cudaSuccess);

  fill<<<dim3(1, 70000), 32>>>(d, 1);
  failures += expect("gridDim.y = 70000", cudaGetLastError(), cudaErrorInvalidConfiguration);

  int *never = (int *)(uintptr_t)0xdead0000;
  failures += expect("cudaFree(unallocated)", cudaFree(never), cudaErrorInvalidValue);
  failures += expect("  last error", cudaGetLastError(), cudaErrorInvalidValue);

  static int host[512];
  failures += expect("cudaMemcpy past the allocation",
                     cudaMemcpy(host, d, sizeof(host), cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  failures += expect("  last error", cudaGetLastError(), cudaErrorInvalidValue);

  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  failures += expect("cudaSetDevice(count)", cudaSetDevice(count), cudaErrorInvalidDevice);
  failures += expect("  last error", cudaGetLastError(), cudaErrorInvalidDevice);
  failures += expect("  cleared", cudaGetLastError(), cudaSuccess);
  CHECK(cudaSetDevice(0));

  if (strcmp(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress") != 0 ||
      strcmp(cudaGetErrorString(cudaErrorIllegalAddress), "an illegal memory access was encountered") != 0) {
    printf("error name/string: %s / %s\n", cudaGetErrorName(cudaErrorIllegalAddress),
           cudaGetErrorString(cudaErrorIllegalAddress));
    failures++;
  }

  // None of the above is sticky: normal work still succeeds.
  fill<<<2, 128>>>(d, 7);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(host, d, 256 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 256; i++) failures += (host[i] != 7);
  CHECK(cudaFree(d));
  return report("api_errors", failures);
}
