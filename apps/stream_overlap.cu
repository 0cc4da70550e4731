// stream_overlap: two non-default streams, each handling alternate chunks of a 4,096-element
// array: cudaMemcpyAsync host-to-device from a cudaMallocHost (pinned) buffer, a kernel,
// cudaMemcpyAsync device-to-host back into pinned memory. Copies in one stream can overlap
// kernels in the other. cudaStreamQuery must report cudaSuccess once a stream is
// synchronised. Exact compare.
#include "check.h"

__global__ void polish(const float *in, float *out, int n, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * k + (float)(i % 4);
}

int main() {
  const int n = 4096, chunks = 8, chunk = n / chunks;
  float *hin, *hout;
  CHECK(cudaMallocHost(&hin, n * sizeof(float)));
  CHECK(cudaMallocHost(&hout, n * sizeof(float)));
  for (int i = 0; i < n; i++) {
    hin[i] = (float)(i % 113) - 50.0f;
    hout[i] = -1.0f;
  }
  float *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(float)));
  CHECK(cudaMalloc(&dout, n * sizeof(float)));
  cudaStream_t s[2];
  CHECK(cudaStreamCreate(&s[0]));
  CHECK(cudaStreamCreate(&s[1]));
  for (int c = 0; c < chunks; c++) {
    cudaStream_t st = s[c % 2];
    int off = c * chunk;
    float k = (c % 2) ? 2.0f : -0.5f;
    CHECK(cudaMemcpyAsync(din + off, hin + off, chunk * sizeof(float), cudaMemcpyHostToDevice, st));
    polish<<<chunk / 128, 128, 0, st>>>(din + off, dout + off, chunk, k);
    CHECK_LAUNCH();
    CHECK(cudaMemcpyAsync(hout + off, dout + off, chunk * sizeof(float), cudaMemcpyDeviceToHost, st));
  }
  CHECK(cudaStreamSynchronize(s[0]));
  CHECK(cudaStreamSynchronize(s[1]));
  CHECK(cudaStreamQuery(s[0]));
  CHECK(cudaStreamQuery(s[1]));
  int bad = 0;
  for (int i = 0; i < n; i++) {
    int c = i / chunk;
    float k = (c % 2) ? 2.0f : -0.5f;
    float ref = hin[i] * k + (float)((i - c * chunk) % 4);
    if (hout[i] != ref) {
      if (bad < 5) printf("mismatch at %d: %f != %f\n", i, hout[i], ref);
      bad++;
    }
  }
  CHECK(cudaStreamDestroy(s[0]));
  CHECK(cudaStreamDestroy(s[1]));
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  CHECK(cudaFreeHost(hin));
  CHECK(cudaFreeHost(hout));
  return report("stream_overlap", bad);
}
