// graph_capture: stream capture into a CUDA graph (cudaStreamBeginCapture ...
// cudaStreamEndCapture), cudaGraphInstantiate, then cudaGraphLaunch 10 times. The captured
// work is two dependent kernels and a device-to-device cudaMemcpyAsync. Nothing may run
// during capture (checked by reading the buffers before the first launch); after 10
// launches x[i] = x0 + 10, y[i] = y0 + sum over k of (x0 + k), and the copy holds y.
#include <vector>
#include "check.h"

__global__ void bump(int *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}

__global__ void accumulate(const int *x, int *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += x[i];
}

int main() {
  const int n = 300, launches = 10;
  std::vector<int> x0(n), y0(n), x(n), y(n), ycopy(n);
  for (int i = 0; i < n; i++) {
    x0[i] = i % 17;
    y0[i] = 1000 - i;
  }
  int *dx, *dy, *dcopy;
  CHECK(cudaMalloc(&dx, n * sizeof(int)));
  CHECK(cudaMalloc(&dy, n * sizeof(int)));
  CHECK(cudaMalloc(&dcopy, n * sizeof(int)));
  CHECK(cudaMemcpy(dx, x0.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y0.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dcopy, 0, n * sizeof(int)));

  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  bump<<<(n + 127) / 128, 128, 0, s>>>(dx, n);
  CHECK_LAUNCH();
  accumulate<<<(n + 127) / 128, 128, 0, s>>>(dx, dy, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpyAsync(dcopy, dy, n * sizeof(int), cudaMemcpyDeviceToDevice, s));
  CHECK(cudaStreamEndCapture(s, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));

  int bad = 0;
  CHECK(cudaMemcpy(x.data(), dx, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    if (x[i] != x0[i]) {
      if (bad < 5) printf("captured work ran during capture: x[%d] = %d\n", i, x[i]);
      bad++;
    }
  }
  for (int l = 0; l < launches; l++) CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(x.data(), dx, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(y.data(), dy, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(ycopy.data(), dcopy, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    int refX = x0[i] + launches;
    int refY = y0[i] + launches * x0[i] + launches * (launches + 1) / 2;
    if (x[i] != refX || y[i] != refY || ycopy[i] != refY) {
      if (bad < 5) printf("%d: x %d/%d y %d/%d copy %d\n", i, x[i], refX, y[i], refY, ycopy[i]);
      bad++;
    }
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  CHECK(cudaFree(dcopy));
  return report("graph_capture", bad);
}
