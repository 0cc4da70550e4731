// managed_mem: cudaMallocManaged memory touched directly by the host and by kernels with
// no explicit copies: the host fills it, a kernel transforms it in place, the host reads
// the results after cudaDeviceSynchronize, changes some values, and a second kernel (which
// also reads a second managed buffer through a pointer stored in managed memory) sees them.
#include "check.h"

struct Node {
  int *values;  // points to another managed allocation
  int count;
};

__global__ void square(int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * data[i];
}

__global__ void gather(const Node *node, const int *data, long long *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < node->count) out[i] = (long long)node->values[i] * 1000 + data[i];
}

int main() {
  const int n = 400;
  int *data, *values;
  Node *node;
  long long *out;
  CHECK(cudaMallocManaged(&data, n * sizeof(int)));
  CHECK(cudaMallocManaged(&values, n * sizeof(int)));
  CHECK(cudaMallocManaged(&node, sizeof(Node)));
  CHECK(cudaMallocManaged(&out, n * sizeof(long long)));
  for (int i = 0; i < n; i++) data[i] = i - 200;
  square<<<(n + 127) / 128, 128>>>(data, n);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  int bad = 0;
  for (int i = 0; i < n; i++) {
    if (data[i] != (i - 200) * (i - 200)) {
      if (bad < 5) printf("square %d: %d\n", i, data[i]);
      bad++;
    }
  }
  for (int i = 0; i < n; i += 3) data[i] = -i;  // host writes after the kernel
  for (int i = 0; i < n; i++) values[i] = n - i;
  node->values = values;
  node->count = n - 10;
  gather<<<(n + 127) / 128, 128>>>(node, data, out);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n - 10; i++) {
    long long d = (i % 3 == 0) ? -i : (long long)(i - 200) * (i - 200);
    long long ref = (long long)(n - i) * 1000 + d;
    if (out[i] != ref) {
      if (bad < 5) printf("gather %d: %lld != %lld\n", i, out[i], ref);
      bad++;
    }
  }
  CHECK(cudaFree(data));
  CHECK(cudaFree(values));
  CHECK(cudaFree(node));
  CHECK(cudaFree(out));
  return report("managed_mem", bad);
}
