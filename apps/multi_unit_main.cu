// multi_unit (unit 1 of 2): main() and one kernel here, two kernels and a __constant__
// symbol in multi_unit_lib.cu; each unit has its own __constant__ symbol. The data flows
// main kernel -> lib kernel -> main kernel, then the lib checks its own kernel and symbol.
#include <vector>
#include "check.h"
#include "multi_unit_lib.h"

__constant__ int mainScale;  // a symbol that lives in this unit's module only

__global__ void scaleBy(int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= mainScale;
}

int main() {
  const int n = 300;
  std::vector<int> h(n), out(n);
  for (int i = 0; i < n; i++) h[i] = i % 29 - 14;
  int scale = 3;
  CHECK(cudaMemcpyToSymbol(mainScale, &scale, sizeof(int)));
  int *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMemcpy(din, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  scaleBy<<<(n + 127) / 128, 128>>>(din, n);
  CHECK_LAUNCH();
  CHECK(launchSquareMinus(din, dout, n, 5));
  scaleBy<<<(n + 127) / 128, 128>>>(dout, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; i++) {
    int v = h[i] * 3;
    int ref = (v * v - 5) * 3;
    if (out[i] != ref) {
      if (bad < 5) printf("mismatch at %d: %d != %d\n", i, out[i], ref);
      bad++;
    }
  }
  bad += libSelfCheck();
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  return report("multi_unit", bad);
}
