// Start-up (issue 12.4, corner c): the smallest useful program, one tiny launch.
#include <cstdio>

__global__ void setOne(int *x) { x[threadIdx.x] = 1; }

int main() {
  int *d, h[32];
  cudaMalloc(&d, sizeof(h));
  setOne<<<1, 32>>>(d);
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  bool ok = h[0] == 1 && h[31] == 1;
  printf("trivial: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
