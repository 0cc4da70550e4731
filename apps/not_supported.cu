// not_supported: calls a runtime API that the simulator does not implement
// (cudaIpcGetMemHandle: inter-process memory sharing) and checks that it returns
// cudaErrorNotSupported instead of pretending to succeed or aborting. The error is not
// sticky: ordinary calls and a kernel still work afterwards.
#include "check.h"

__global__ void setOnes(int *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = 1;
}

int main() {
  const int n = 64;
  int *d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  int failures = 0;
  cudaIpcMemHandle_t handle;
  cudaError_t err = cudaIpcGetMemHandle(&handle, d);
  printf("cudaIpcGetMemHandle: %s\n", cudaGetErrorName(err));
  if (err != cudaErrorNotSupported) failures++;
  cudaError_t last = cudaGetLastError();  // reports and clears the non-sticky error
  if (last != cudaErrorNotSupported) {
    printf("cudaGetLastError returned %s, expected cudaErrorNotSupported\n", cudaGetErrorName(last));
    failures++;
  }
  setOnes<<<1, n>>>(d, n);
  CHECK_LAUNCH();
  int h[n];
  CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) failures += (h[i] != 1);
  CHECK(cudaFree(d));
  return report("not_supported", failures);
}
