// local_array: each thread keeps a 24-word array that it indexes with data-dependent
// indices (so it cannot live in registers: ld.local / st.local), does 40 read-modify-write
// steps driven by an LCG, then writes a checksum. A second kernel uses a per-thread array of
// structs indexed by threadIdx-dependent values. Exact compare with the CPU.
#include <vector>
#include "check.h"

#define WORDS 24
#define STEPS 40

__host__ __device__ unsigned localWork(unsigned seed) {
  unsigned arr[WORDS];
  for (int k = 0; k < WORDS; k++) arr[k] = seed ^ (k * 0x9E3779B9u);
  unsigned x = seed;
  for (int s = 0; s < STEPS; s++) {
    x = x * 1664525u + 1013904223u;
    unsigned a = (x >> 7) % WORDS, b = (x >> 17) % WORDS;
    arr[a] = arr[a] * 3u + arr[b];
  }
  unsigned sum = 0;
  for (int k = 0; k < WORDS; k++) sum = sum * 31u + arr[k];
  return sum;
}

struct Pair {
  int key;
  float val;
};

__global__ void localArray(const unsigned *seeds, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = localWork(seeds[i]);
}

__global__ void localStructs(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Pair p[8];
  for (int k = 0; k < 8; k++) {
    p[k].key = (i * 5 + k * 3) % 8;
    p[k].val = 0.5f * k;
  }
  int acc = 0;
  for (int k = 0; k < 8; k++) acc += p[p[k].key].key * 10 + (int)(p[(i + k) % 8].val * 2.0f);
  out[i] = acc;
}

int main() {
  const int n = 256;
  std::vector<unsigned> seeds(n), out(n);
  for (int i = 0; i < n; i++) seeds[i] = 0xABCDu * i + 77u;
  unsigned *dseeds, *dout;
  int *dout2;
  CHECK(cudaMalloc(&dseeds, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&dout, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&dout2, n * sizeof(int)));
  CHECK(cudaMemcpy(dseeds, seeds.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  localArray<<<n / 64, 64>>>(dseeds, dout, n);
  CHECK_LAUNCH();
  localStructs<<<n / 64, 64>>>(dout2, n);
  CHECK_LAUNCH();
  std::vector<int> out2(n);
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(out2.data(), dout2, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; i++) {
    unsigned ref = localWork(seeds[i]);
    int ref2 = 0;
    int keys[8];
    for (int k = 0; k < 8; k++) keys[k] = (i * 5 + k * 3) % 8;
    for (int k = 0; k < 8; k++) ref2 += keys[keys[k]] * 10 + (int)(0.5f * ((i + k) % 8) * 2.0f);
    if (out[i] != ref || out2[i] != ref2) {
      if (bad < 5) printf("thread %d: %u/%u %d/%d\n", i, out[i], ref, out2[i], ref2);
      bad++;
    }
  }
  CHECK(cudaFree(dseeds));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dout2));
  return report("local_array", bad);
}
