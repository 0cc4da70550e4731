// host_callback: cudaLaunchHostFunc in stream order. Stream: kernel -> async copy into
// pinned buffer A -> host function #0 (sums buffer A, so it must run after that copy)
// -> second kernel + copy into pinned buffer B -> host function #1. After
// cudaStreamSynchronize both callbacks have run exactly once, in order, and each saw the
// data its preceding copy delivered.
#include "check.h"

struct Log {
  int calls;
  int order[2];
  long long sums[2];
};

struct Ctx {
  const int *pinned;
  int n;
  int id;
  Log *log;
};

static void CUDART_CB sumPinned(void *arg) {
  Ctx *c = (Ctx *)arg;
  long long s = 0;
  for (int i = 0; i < c->n; i++) s += c->pinned[i];
  if (c->log->calls < 2) c->log->order[c->log->calls] = c->id;
  c->log->sums[c->id] = s;
  c->log->calls++;
}

__global__ void fill(int *d, int n, int mul) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = (i % 50) * mul;
}

int main() {
  const int n = 1000;
  int *d, *pinnedA, *pinnedB;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMallocHost(&pinnedA, n * sizeof(int)));
  CHECK(cudaMallocHost(&pinnedB, n * sizeof(int)));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  Log log = {0, {-1, -1}, {0, 0}};
  Ctx c0 = {pinnedA, n, 0, &log};
  Ctx c1 = {pinnedB, n, 1, &log};
  fill<<<(n + 255) / 256, 256, 0, s>>>(d, n, 3);
  CHECK_LAUNCH();
  CHECK(cudaMemcpyAsync(pinnedA, d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  CHECK(cudaLaunchHostFunc(s, sumPinned, &c0));
  fill<<<(n + 255) / 256, 256, 0, s>>>(d, n, -2);
  CHECK_LAUNCH();
  CHECK(cudaMemcpyAsync(pinnedB, d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  CHECK(cudaLaunchHostFunc(s, sumPinned, &c1));
  CHECK(cudaStreamSynchronize(s));

  long long base = 0;
  for (int i = 0; i < n; i++) base += i % 50;
  int bad = 0;
  if (log.calls != 2 || log.order[0] != 0 || log.order[1] != 1) {
    printf("callbacks: %d calls, order %d %d (expected 2 calls, order 0 1)\n", log.calls,
           log.order[0], log.order[1]);
    bad++;
  }
  if (log.sums[0] != 3 * base || log.sums[1] != -2 * base) {
    printf("callbacks saw sums %lld %lld, expected %lld %lld\n", log.sums[0], log.sums[1], 3 * base,
           -2 * base);
    bad++;
  }
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(d));
  CHECK(cudaFreeHost(pinnedA));
  CHECK(cudaFreeHost(pinnedB));
  return report("host_callback", bad);
}
