// printf_many: device printf from 96 threads in 3 blocks, two lines per thread from a loop,
// with a %s argument that is a per-thread pointer into a __device__ string table and a
// %08.3f / %-6s / %+d mix. tests/apps checks that all 192 lines arrive exactly once (in any
// order across threads, but each thread's two lines in program order) between the host lines.
#include "check.h"

__device__ const char *names[4] = {"alpha", "beta", "gamma", "delta"};

__global__ void chatter(int *done) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 2; k++)
    printf("many: t=%03d k=%d name=%-6s| v=%08.3f s=%+d\n", t, k, names[(t + k) % 4], t * 0.125 + k, k - t % 3);
  atomicAdd(done, 1);
}

int main() {
  int *done, h = 0;
  CHECK(cudaMalloc(&done, sizeof(int)));
  CHECK(cudaMemset(done, 0, sizeof(int)));
  printf("host: launching\n");
  chatter<<<3, 32>>>(done);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  printf("host: synchronised\n");
  CHECK(cudaMemcpy(&h, done, sizeof(int), cudaMemcpyDeviceToHost));
  return report("printf_many", h != 96);
}
