// staged N MIB: N asynchronous copies of MIB MiB each from pageable host memory (staged when
// enqueued), each followed by a kernel that reads the copy; the kernels' sums are checked.
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void touch(const unsigned char *d, unsigned *out, int k) {
  out[threadIdx.x] += d[threadIdx.x * 4099] + k;
}

int main(int argc, char **argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 48;
  const size_t n = (size_t)(argc > 2 ? atoi(argv[2]) : 16) << 20;
  unsigned char *h = (unsigned char *)malloc(n), *d;
  unsigned *o, want[32] = {0}, got[32];
  cudaMalloc(&d, n);
  cudaMalloc(&o, sizeof(got));
  cudaMemset(o, 0, sizeof(got));
  for (int k = 0; k < reps; k++) {
    memset(h, k & 0xff, n);              // legal at once: the copy was staged
    cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, 0);
    touch<<<1, 32>>>(d, o, k);
    for (int t = 0; t < 32; t++) want[t] += (k & 0xff) + k;
  }
  cudaMemcpy(got, o, sizeof(got), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int t = 0; t < 32; t++) bad += got[t] != want[t];
  printf("staged %d x %zu MiB: %s\n", reps, n >> 20, bad ? "FAIL" : "PASS");
  return bad != 0;
}
