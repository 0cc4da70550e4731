// streams N: N iterations of two streams ordered by events, a captured two-kernel graph, a
// host function and a cudaMallocAsync/cudaFreeAsync pair; the counters are checked.
#include <cstdio>
#include <cstdlib>

__global__ void bump(unsigned *acc, unsigned k) { acc[threadIdx.x] += k; }
static void CUDART_CB count(void *p) { ++*(unsigned long *)p; }

int main(int argc, char **argv) {
  const int iters = argc > 1 ? atoi(argv[1]) : 500;
  unsigned *d, h[32];
  cudaMalloc(&d, sizeof(h));
  cudaMemset(d, 0, sizeof(h));
  cudaStream_t s[2];
  cudaStreamCreate(&s[0]);
  cudaStreamCreate(&s[1]);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaGraph_t g;
  cudaGraphExec_t ge;
  cudaStreamBeginCapture(s[1], cudaStreamCaptureModeGlobal);
  bump<<<1, 32, 0, s[1]>>>(d, 1);
  bump<<<1, 32, 0, s[1]>>>(d, 1);
  cudaStreamEndCapture(s[1], &g);
  cudaGraphInstantiate(&ge, g, 0);
  unsigned long calls = 0;
  for (int i = 0; i < iters; i++) {
    cudaEventRecord(e0, s[0]);
    bump<<<1, 32, 0, s[0]>>>(d, 1);
    cudaStreamWaitEvent(s[1], e0, 0);
    cudaGraphLaunch(ge, s[1]);
    cudaEventRecord(e1, s[1]);
    cudaLaunchHostFunc(s[1], count, &calls);
    void *tmp;
    cudaMallocAsync(&tmp, 1024, s[0]);
    cudaFreeAsync(tmp, s[0]);
    if (i % 100 == 99) {
      float ms;
      cudaEventSynchronize(e1);
      cudaEventElapsedTime(&ms, e0, e1);
    }
  }
  cudaDeviceSynchronize();
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  int bad = calls != (unsigned long)iters;
  for (int t = 0; t < 32; t++) bad += h[t] != 3u * iters;
  printf("streams %d: %s\n", iters, bad ? "FAIL" : "PASS");
  return bad != 0;
}
