// register_pressure: Rodinia-style kernels (bfs, hotspot, srad_v1 launch 512-thread blocks of
// 20-61 registers per thread) launched as such programs launch them, 512 threads per block.
// Three kernels keep 6, 12 and 18 32-bit values live through rounds of integer mixing (22, 38
// and 60 registers per thread in nvcc 13's sm_75 code); each result is checked against the same
// mixing on the CPU.
//
// The program asks the device first, as a portable CUDA program does: cudaFuncGetAttributes
// (numRegs, maxThreadsPerBlock) and the occupancy query.  A 512-thread launch must succeed
// exactly when maxThreadsPerBlock >= 512; where the GPU cannot hold such a block (16 K
// registers per block on cc 1.x) the launch must fail with cudaErrorLaunchOutOfResources, and
// the kernel is then run again with maxThreadsPerBlock threads.  One line per kernel says
// which happened:  "<kernel>: regs=<n> maxThreadsPerBlock=<m> blocks/SM=<b> launched 512"
// or "... refused 512 (cudaErrorLaunchOutOfResources), launched <m>".
#include <vector>
#include "check.h"

template <int K>
__host__ __device__ inline unsigned mix_all(unsigned (&v)[K], unsigned seed) {
#pragma unroll
  for (int r = 0; r < 6; r++) {
#pragma unroll
    for (int k = 0; k < K; k++) v[k] = v[k] * 2654435761u + (v[(k + 1) % K] ^ (v[(k + 5) % K] >> 3)) + seed;
  }
  unsigned s = 0;
#pragma unroll
  for (int k = 0; k < K; k++) s = (s ^ v[k]) * 16777619u + (unsigned)k;
  return s;
}

// Each thread loads K values (strided through the input), mixes them and writes one word.
template <int K>
__global__ void __launch_bounds__(512) pressure(const unsigned *in, unsigned *out, int n, unsigned seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v[K];
#pragma unroll
  for (int k = 0; k < K; k++) v[k] = in[(i + k * 97) % n];
  out[i] = mix_all<K>(v, seed);
}

template <int K>
static int run(const char *name, const unsigned *d_in, unsigned *d_out, const std::vector<unsigned> &h_in,
               int n) {
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, pressure<K>));
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pressure<K>, 512, 0));
  int bad = 0;
  if (fa.numRegs < 8 || fa.numRegs > 64) {
    printf("%s: %d registers per thread, outside the 8..64 this program is written for\n", name, fa.numRegs);
    bad++;
  }
  if ((per_sm >= 1) != (fa.maxThreadsPerBlock >= 512)) {
    printf("%s: occupancy %d blocks/SM disagrees with maxThreadsPerBlock %d\n", name, per_sm, fa.maxThreadsPerBlock);
    bad++;
  }
  const unsigned seed = 0x9e3779b9u * (unsigned)K;
  int threads = 512;
  CHECK(cudaMemset(d_out, 0, n * sizeof(unsigned)));
  pressure<K><<<(n + threads - 1) / threads, threads>>>(d_in, d_out, n, seed);
  cudaError_t e = cudaGetLastError();
  printf("%s: regs=%d maxThreadsPerBlock=%d blocks/SM=%d ", name, fa.numRegs, fa.maxThreadsPerBlock, per_sm);
  if (e == cudaSuccess) {
    printf("launched 512\n");
    bad += (fa.maxThreadsPerBlock < 512);
  } else {
    printf("refused 512 (%s), ", cudaGetErrorName(e));
    bad += (e != cudaErrorLaunchOutOfResources) + (fa.maxThreadsPerBlock >= 512);
    threads = fa.maxThreadsPerBlock;
    printf("launched %d\n", threads);
    pressure<K><<<(n + threads - 1) / threads, threads>>>(d_in, d_out, n, seed);
    CHECK_LAUNCH();
  }
  std::vector<unsigned> h_out(n);
  CHECK(cudaMemcpy(h_out.data(), d_out, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    unsigned v[K];
    for (int k = 0; k < K; k++) v[k] = h_in[(i + k * 97) % n];
    if (h_out[i] != mix_all<K>(v, seed) && bad++ < 4) printf("%s: out[%d] = %u\n", name, i, h_out[i]);
  }
  return bad;
}

int main() {
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  printf("device: cc %d.%d, %d registers per block, %d threads per block\n", p.major, p.minor, p.regsPerBlock,
         p.maxThreadsPerBlock);
  const int n = 512 * 6;
  std::vector<unsigned> h_in(n);
  for (int i = 0; i < n; i++) h_in[i] = (unsigned)i * 2246822519u + 374761393u;
  unsigned *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_out, n * sizeof(unsigned)));
  CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  int bad = 0;
  bad += run<6>("pressure6", d_in, d_out, h_in, n);
  bad += run<12>("pressure12", d_in, d_out, h_in, n);
  bad += run<18>("pressure18", d_in, d_out, h_in, n);
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  return report("register_pressure", bad);
}
