// solver N ITERS: Jacobi iterations for the 1-D Poisson system (2 x_i - x_{i-1} - x_{i+1} = b_i)
// in double precision: per iteration one update kernel and one residual kernel (block
// partial sums of r^2, reduced on the host every CHECK_EVERY iterations), so a many-launch
// program with two repeating kernels.  Prints the residual history and a checksum.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "../../apps/check.h"

#define TPB 256

__global__ void jacobi(const double *x, double *y, const double *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double l = i > 0 ? x[i - 1] : 0.0, r = i < n - 1 ? x[i + 1] : 0.0;
    y[i] = 0.5 * (b[i] + l + r);
  }
}

__global__ void residual(const double *x, const double *b, double *part, int n) {
  __shared__ double s[TPB];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v = 0.0;
  if (i < n) {
    double l = i > 0 ? x[i - 1] : 0.0, r = i < n - 1 ? x[i + 1] : 0.0;
    double d = b[i] - (2.0 * x[i] - l - r);
    v = d * d;
  }
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = TPB / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) part[blockIdx.x] = s[0];
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 65536, iters = argc > 2 ? atoi(argv[2]) : 200;
  const int every = 50, blocks = (n + TPB - 1) / TPB;
  std::vector<double> b(n), x(n, 0.0), part(blocks);
  for (int i = 0; i < n; i++) b[i] = 1.0 + (i % 7) * 0.25;
  double *dx, *dy, *db, *dp;
  CHECK(cudaMalloc(&dx, n * sizeof(double)));
  CHECK(cudaMalloc(&dy, n * sizeof(double)));
  CHECK(cudaMalloc(&db, n * sizeof(double)));
  CHECK(cudaMalloc(&dp, blocks * sizeof(double)));
  CHECK(cudaMemcpy(db, b.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dx, 0, n * sizeof(double)));
  for (int it = 0; it < iters; it++) {
    jacobi<<<blocks, TPB>>>(dx, dy, db, n);
    CHECK_LAUNCH();
    residual<<<blocks, TPB>>>(dy, db, dp, n);
    CHECK_LAUNCH();
    double *t = dx; dx = dy; dy = t;
    if ((it + 1) % every == 0 || it + 1 == iters) {
      CHECK(cudaMemcpy(part.data(), dp, blocks * sizeof(double), cudaMemcpyDeviceToHost));
      double r2 = 0.0;
      for (int k = 0; k < blocks; k++) r2 += part[k];
      printf("iteration %d residual %.12e\n", it + 1, sqrt(r2));
    }
  }
  CHECK(cudaMemcpy(x.data(), dx, n * sizeof(double), cudaMemcpyDeviceToHost));
  // the same iterations on the CPU, in the same order of operations
  std::vector<double> c(n, 0.0), d(n);
  for (int it = 0; it < iters; it++) {
    for (int i = 0; i < n; i++) d[i] = 0.5 * (b[i] + (i > 0 ? c[i - 1] : 0.0) + (i < n - 1 ? c[i + 1] : 0.0));
    c.swap(d);
  }
  int bad = 0;
  double sum = 0.0;
  for (int i = 0; i < n; i++) {
    sum += x[i] * (1 + i % 3);
    if (x[i] != c[i]) bad++;
  }
  printf("checksum %.12e\n", sum);
  CHECK(cudaFree(dx)); CHECK(cudaFree(dy)); CHECK(cudaFree(db)); CHECK(cudaFree(dp));
  return report("solver", bad);
}
