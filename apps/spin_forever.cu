// spin_forever: thread 0 spins on a flag in device memory until another thread sets it.
// By default thread 32 (another warp) sets it, so the kernel ends and the program verifies the
// flag (spinning depends on warp scheduling, as on hardware). With the argument "forever" no
// thread sets it and the kernel never ends: the interruption test (tests/runtime/
// test_interrupt.py) stops it with Ctrl-C and checks that the statistics survive.
#include <cstring>
#include "check.h"

__global__ void spin(volatile int *flag, int release, int *seen) {
  if (threadIdx.x == 0) printf("spin_forever: kernel spinning\n");
  if (threadIdx.x == 32 && release) *flag = 1;
  if (threadIdx.x == 0) {
    while (*flag == 0) {
    }
    *seen = *flag;
  }
}

int main(int argc, char **argv) {
  bool forever = argc > 1 && strcmp(argv[1], "forever") == 0;
  int *flag, *seen;
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMalloc(&seen, sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  CHECK(cudaMemset(seen, 0, sizeof(int)));
  spin<<<1, 64>>>(flag, forever ? 0 : 1, seen);
  CHECK_LAUNCH();
  printf("spin_forever: kernel launched%s\n", forever ? " (never ends)" : "");
  fflush(stdout);
  CHECK(cudaDeviceSynchronize());
  int host = 0;
  CHECK(cudaMemcpy(&host, seen, sizeof(int), cudaMemcpyDeviceToHost));
  return report("spin_forever", host == 1 ? 0 : 1);
}
