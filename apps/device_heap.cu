// device_heap: device-side malloc/free (each thread allocates, fills and sums its own
// block; one allocation per block is shared through shared memory), clock64() monotonic
// within a thread, and the pitched 2-D copy/set APIs cudaMemset2D and cudaMemcpy2DAsync.
// Exact compare.
#include <vector>
#include "check.h"

__global__ void heap(int *out, long long *clocks) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  long long c0 = clock64();
  int len = 4 + threadIdx.x % 13;
  int *p = (int *)malloc(len * sizeof(int));
  __shared__ int *shared;
  if (threadIdx.x == 0) shared = (int *)malloc(blockDim.x * sizeof(int));
  __syncthreads();
  if (p == nullptr || shared == nullptr) {
    out[t] = -1;
    return;
  }
  for (int k = 0; k < len; k++) p[k] = t * k + 1;
  int s = 0;
  for (int k = 0; k < len; k++) s += p[k];
  free(p);
  shared[threadIdx.x] = s;
  __syncthreads();
  out[t] = shared[(threadIdx.x + 1) % blockDim.x];
  __syncthreads();
  if (threadIdx.x == 0) free(shared);
  clocks[t] = clock64() - c0;
}

int main() {
  const int blocks = 3, threads = 64, n = blocks * threads;
  int *dout;
  long long *dclk;
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMalloc(&dclk, n * sizeof(long long)));
  heap<<<blocks, threads>>>(dout, dclk);
  CHECK_LAUNCH();
  std::vector<int> out(n);
  std::vector<long long> clk(n);
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(clk.data(), dclk, n * sizeof(long long), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int t = 0; t < n; t++) {
    int b0 = t / threads * threads, u = b0 + (t - b0 + 1) % threads;
    int len = 4 + (u - b0) % 13, ref = 0;
    for (int k = 0; k < len; k++) ref += u * k + 1;
    if (out[t] != ref || clk[t] < 0) {
      if (bad < 5) printf("thread %d: %d != %d (clock delta %lld)\n", t, out[t], ref, clk[t]);
      bad++;
    }
  }

  const int W = 100, H = 10;
  char *d2;
  size_t pitch;
  CHECK(cudaMallocPitch((void **)&d2, &pitch, W, H));
  CHECK(cudaMemset2D(d2, pitch, 7, W, H));
  CHECK(cudaMemset2D(d2 + 2 * pitch + 10, pitch, 9, 20, 3));  // a sub-rectangle
  std::vector<char> h(W * H);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaMemcpy2DAsync(h.data(), W, d2, pitch, W, H, cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      char ref = (y >= 2 && y < 5 && x >= 10 && x < 30) ? 9 : 7;
      bad += (h[y * W + x] != ref);
    }
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(d2));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dclk));
  return report("device_heap", bad);
}
