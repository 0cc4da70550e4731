// device_printf: printf from device code, interleaved with host printf. The test in
// tests/apps checks the exact stdout lines and their order: device output appears when the
// host synchronises, after the host lines printed before the launch and before those
// printed after the synchronisation. Formats: %d %u %x %5d %-4d %lld %.3f %e %c %s %%.
// Within the single warp, lines appear in lane order; the divergent branch prints after.
#include "check.h"

__global__ void hello(int *flags) {
  int t = threadIdx.x;
  printf("device: thread %d of %d says %d\n", t, (int)blockDim.x, 10 * t + 1);
  if (t % 2 == 1) printf("device: odd thread %d\n", t);
  flags[t] = t + 1;
}

__global__ void formats(int *flags, long long big, double pi) {
  printf("formats: %d %u %x %5d|%-4d| %lld %.3f %e %c %s %%\n", -42, 4000000000u, 255, 7, 3, big, pi,
         1234.5, 'Z', "text");
  flags[0] = 99;
}

int main() {
  int *dflags;
  CHECK(cudaMalloc(&dflags, 4 * sizeof(int)));
  CHECK(cudaMemset(dflags, 0, 4 * sizeof(int)));
  printf("host: before launch\n");
  hello<<<1, 4>>>(dflags);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  printf("host: between launches\n");
  int flags[4];
  CHECK(cudaMemcpy(flags, dflags, sizeof(flags), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int t = 0; t < 4; t++) bad += (flags[t] != t + 1);
  formats<<<1, 1>>>(dflags, -1234567890123LL, 3.14159);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  printf("host: after sync\n");
  CHECK(cudaMemcpy(flags, dflags, sizeof(int), cudaMemcpyDeviceToHost));
  bad += (flags[0] != 99);
  CHECK(cudaFree(dflags));
  return report("device_printf", bad);
}
