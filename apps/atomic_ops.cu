// atomic_ops: the atomic family on global and shared memory from 4 blocks of 128 threads:
// atomicAdd (int, float with exactly representable values, unsigned long long),
// atomicSub, atomicMin/atomicMax (signed), atomicAnd/Or/Xor, atomicExch, atomicInc with
// wrap-around, atomicCAS (a CAS loop implementing a float maximum) and the returned old
// values (each thread gets a unique ticket from atomicAdd). Exact compare.
#include <vector>
#include "check.h"

struct Results {
  int sum, sub, mn, mx;
  unsigned andv, orv, xorv, inc;
  float fsum, fmax;
  unsigned long long big;
  int exch;
  int sharedSum[4];
};

__device__ float atomicMaxFloat(float *addr, float v) {
  int *p = (int *)addr;
  int old = *p, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= v) break;
    old = atomicCAS(p, assumed, __float_as_int(v));
  } while (old != assumed);
  return __int_as_float(old);
}

__global__ void atomics(Results *r, int *tickets) {
  __shared__ int blockSum;
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) blockSum = 0;
  __syncthreads();
  int v = (t * 37) % 101 - 50;
  tickets[t] = atomicAdd(&r->sum, 1);  // old values: a permutation of 0..n-1
  atomicSub(&r->sub, v);
  atomicMin(&r->mn, v);
  atomicMax(&r->mx, v);
  atomicAnd(&r->andv, ~(1u << (t % 32)) | 0x80000000u);
  atomicOr(&r->orv, 1u << (t % 31));
  atomicXor(&r->xorv, (unsigned)t * 2654435761u);
  atomicInc(&r->inc, 99u);  // wraps to 0 after 99
  atomicAdd(&r->fsum, 0.25f * (t % 8));
  atomicMaxFloat(&r->fmax, 0.5f * ((t * 13) % 200));
  atomicAdd(&r->big, 1ull << 33);
  atomicExch(&r->exch, t);
  atomicAdd(&blockSum, v);
  __syncthreads();
  if (threadIdx.x == 0) r->sharedSum[blockIdx.x] = blockSum;
}

int main() {
  const int blocks = 4, threads = 128, n = blocks * threads;
  Results init = {};
  init.mn = 1000;
  init.mx = -1000;
  init.andv = 0xffffffffu;
  init.fmax = -1.0f;
  init.exch = -1;
  Results *dr;
  int *dt;
  CHECK(cudaMalloc(&dr, sizeof(Results)));
  CHECK(cudaMalloc(&dt, n * sizeof(int)));
  CHECK(cudaMemcpy(dr, &init, sizeof(Results), cudaMemcpyHostToDevice));
  atomics<<<blocks, threads>>>(dr, dt);
  CHECK_LAUNCH();
  Results r;
  std::vector<int> tickets(n);
  CHECK(cudaMemcpy(&r, dr, sizeof(Results), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(tickets.data(), dt, n * sizeof(int), cudaMemcpyDeviceToHost));

  int sub = 0, mn = 1000, mx = -1000, shared[4] = {0, 0, 0, 0};
  unsigned andv = 0xffffffffu, orv = 0, xorv = 0;
  float fsum = 0.0f, fmax = -1.0f;
  for (int t = 0; t < n; t++) {
    int v = (t * 37) % 101 - 50;
    sub -= v;
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
    andv &= ~(1u << (t % 32)) | 0x80000000u;
    orv |= 1u << (t % 31);
    xorv ^= (unsigned)t * 2654435761u;
    fsum += 0.25f * (t % 8);
    float f = 0.5f * ((t * 13) % 200);
    fmax = f > fmax ? f : fmax;
    shared[t / threads] += v;
  }
  int bad = 0;
  std::vector<int> seen(n, 0);
  for (int t = 0; t < n; t++) {
    if (tickets[t] < 0 || tickets[t] >= n || seen[tickets[t]]++) bad++;
  }
  if (r.sum != n) { printf("sum %d\n", r.sum); bad++; }
  if (r.sub != sub) { printf("sub %d != %d\n", r.sub, sub); bad++; }
  if (r.mn != mn || r.mx != mx) { printf("min/max %d %d != %d %d\n", r.mn, r.mx, mn, mx); bad++; }
  if (r.andv != andv || r.orv != orv || r.xorv != xorv) {
    printf("and/or/xor %x %x %x != %x %x %x\n", r.andv, r.orv, r.xorv, andv, orv, xorv);
    bad++;
  }
  if (r.inc != (unsigned)(n % 100)) { printf("inc %u != %d\n", r.inc, n % 100); bad++; }
  if (r.fsum != fsum || r.fmax != fmax) { printf("fsum/fmax %f %f != %f %f\n", r.fsum, r.fmax, fsum, fmax); bad++; }
  if (r.big != (unsigned long long)n << 33) { printf("big %llu\n", r.big); bad++; }
  if (r.exch < 0 || r.exch >= n) { printf("exch %d\n", r.exch); bad++; }
  for (int b = 0; b < blocks; b++) {
    if (r.sharedSum[b] != shared[b]) { printf("shared sum %d: %d != %d\n", b, r.sharedSum[b], shared[b]); bad++; }
  }
  CHECK(cudaFree(dr));
  CHECK(cudaFree(dt));
  return report("atomic_ops", bad);
}
