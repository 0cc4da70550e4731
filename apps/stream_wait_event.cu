// stream_wait_event: cross-stream ordering with cudaStreamWaitEvent. Two non-blocking
// streams (so the legacy default stream gives no implicit ordering): stream A runs a slow
// producer kernel and records an event; stream B waits on that event, then runs a consumer
// that reads the producer's output. Only stream B is synchronised before checking. A
// second round goes the other way (B produces, A consumes) with the same event reused.
#include "check.h"

__global__ void produce(int *buf, int n, int salt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = i;
  for (int k = 0; k < 100; k++) v = (v * 17 + salt) % 100003;  // make the producer slow
  buf[i] = v;
}

__global__ void consume(const int *buf, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = buf[i] + buf[n - 1 - i];
}

static int expectProduced(int i, int salt) {
  int v = i;
  for (int k = 0; k < 100; k++) v = (v * 17 + salt) % 100003;
  return v;
}

int main() {
  const int n = 512;
  int *buf, *out;
  CHECK(cudaMalloc(&buf, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  CHECK(cudaMemset(buf, 0, n * sizeof(int)));
  cudaStream_t a, b;
  CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  cudaEvent_t ready;
  CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  int bad = 0;
  for (int round = 0; round < 2; round++) {
    cudaStream_t prod = round == 0 ? a : b, cons = round == 0 ? b : a;
    int salt = 7 + round;
    produce<<<n / 128, 128, 0, prod>>>(buf, n, salt);
    CHECK_LAUNCH();
    CHECK(cudaEventRecord(ready, prod));
    CHECK(cudaStreamWaitEvent(cons, ready, 0));
    consume<<<n / 128, 128, 0, cons>>>(buf, out, n);
    CHECK_LAUNCH();
    int h[n];
    CHECK(cudaMemcpyAsync(h, out, sizeof(h), cudaMemcpyDeviceToHost, cons));
    CHECK(cudaStreamSynchronize(cons));
    for (int i = 0; i < n; i++) {
      int ref = expectProduced(i, salt) + expectProduced(n - 1 - i, salt);
      if (h[i] != ref) {
        if (bad < 5) printf("round %d, %d: %d != %d\n", round, i, h[i], ref);
        bad++;
      }
    }
  }
  CHECK(cudaEventDestroy(ready));
  CHECK(cudaStreamDestroy(a));
  CHECK(cudaStreamDestroy(b));
  CHECK(cudaFree(buf));
  CHECK(cudaFree(out));
  return report("stream_wait_event", bad);
}
