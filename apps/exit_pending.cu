// exit_pending: main returns with work still queued on two streams. Stream a (blocking) first
// runs a host function that sleeps 300 ms, so everything behind it is certainly outstanding
// when main returns; then three kernels and an async copy into pinned memory on each of
// stream a and stream b (non-blocking). Stream b waits for stream a's copy (an event), then a
// host function checks both pinned buffers against the CPU and prints the verdict. The
// process exit must drain all of it (CUDA: the context is destroyed only after its work), so
// the verdict line comes after "main returns", and the simulator's final report after both.
#include <unistd.h>
#include "check.h"

static const int kBlocks = 8, kThreads = 128, kN = kBlocks * kThreads;

__global__ void step(unsigned *d, unsigned mul, unsigned add) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = d[i];
  for (int k = 0; k < 20; k++) x = x * mul + add;
  d[i] = x;
}

static unsigned expect(unsigned i, unsigned mul, unsigned add, int launches) {
  unsigned x = i;
  for (int l = 0; l < launches; l++)
    for (int k = 0; k < 20; k++) x = x * mul + add;
  return x;
}

struct Check {
  const unsigned *a, *b;
};

static void CUDART_CB slowStart(void *) { usleep(300 * 1000); }

static void CUDART_CB verify(void *arg) {
  const Check *c = (const Check *)arg;
  int bad = 0;
  for (int i = 0; i < kN; i++) {
    bad += c->a[i] != expect(i, 1664525u, 1013904223u, 3);
    bad += c->b[i] != expect(i, 22695477u, 1u, 3);
  }
  report("exit_pending", bad);
  fflush(stdout);
}

int main() {
  unsigned *da, *db, *pa, *pb;
  unsigned init[kN];
  for (int i = 0; i < kN; i++) init[i] = i;
  CHECK(cudaMalloc(&da, sizeof(init)));
  CHECK(cudaMalloc(&db, sizeof(init)));
  CHECK(cudaMallocHost(&pa, sizeof(init)));
  CHECK(cudaMallocHost(&pb, sizeof(init)));
  CHECK(cudaMemcpy(da, init, sizeof(init), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, init, sizeof(init), cudaMemcpyHostToDevice));
  cudaStream_t a, b;
  CHECK(cudaStreamCreate(&a));
  CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  cudaEvent_t aDone;
  CHECK(cudaEventCreateWithFlags(&aDone, cudaEventDisableTiming));
  static Check check = {pa, pb};
  CHECK(cudaLaunchHostFunc(a, slowStart, nullptr));
  for (int l = 0; l < 3; l++) {
    step<<<kBlocks, kThreads, 0, a>>>(da, 1664525u, 1013904223u);
    CHECK_LAUNCH();
    step<<<kBlocks, kThreads, 0, b>>>(db, 22695477u, 1u);
    CHECK_LAUNCH();
  }
  CHECK(cudaMemcpyAsync(pa, da, sizeof(init), cudaMemcpyDeviceToHost, a));
  CHECK(cudaEventRecord(aDone, a));
  CHECK(cudaMemcpyAsync(pb, db, sizeof(init), cudaMemcpyDeviceToHost, b));
  CHECK(cudaStreamWaitEvent(b, aDone, 0));
  CHECK(cudaLaunchHostFunc(b, verify, &check));
  printf("exit_pending: main returns with work outstanding\n");
  fflush(stdout);
  return 0;
}
