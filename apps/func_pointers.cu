// func_pointers: indirect calls. Each thread picks one of four __device__ functions from a
// table of function pointers by a data-dependent index (so a warp calls several targets in
// one indirect call site), and a small class hierarchy calls a virtual method on objects
// constructed in device memory. Exact compare.
#include <vector>
#include "check.h"

typedef int (*op_t)(int, int);

__device__ int opAdd(int a, int b) { return a + b; }
__device__ int opSub(int a, int b) { return a - b; }
__device__ int opMul(int a, int b) { return a * b; }
__device__ int opMix(int a, int b) { return (a ^ b) + 3 * b; }

__device__ op_t table[4] = {opAdd, opSub, opMul, opMix};

struct Shape {
  int size;
  __device__ virtual int area() const { return 0; }
};
struct Square : Shape {
  __device__ int area() const override { return size * size; }
};
struct Tri : Shape {
  __device__ int area() const override { return size * size / 2; }
};

__global__ void indirect(const int *sel, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  op_t f = table[sel[i] & 3];
  int r = f(i, 7);
  Square sq;
  Tri tr;
  Shape base;
  sq.size = tr.size = base.size = i % 10;
  const Shape *s = (sel[i] % 3 == 0) ? (const Shape *)&sq : (sel[i] % 3 == 1) ? (const Shape *)&tr : &base;
  out[i] = r * 1000 + s->area();
}

int main() {
  const int n = 128;
  std::vector<int> sel(n), out(n);
  for (int i = 0; i < n; i++) sel[i] = (i * 7 + i / 5) % 12;
  int *dsel, *dout;
  CHECK(cudaMalloc(&dsel, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMemcpy(dsel, sel.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  indirect<<<2, 64>>>(dsel, dout, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; i++) {
    int a = i, b = 7, r;
    switch (sel[i] & 3) {
      case 0: r = a + b; break;
      case 1: r = a - b; break;
      case 2: r = a * b; break;
      default: r = (a ^ b) + 3 * b; break;
    }
    int sz = i % 10;
    int area = (sel[i] % 3 == 0) ? sz * sz : (sel[i] % 3 == 1) ? sz * sz / 2 : 0;
    if (out[i] != r * 1000 + area) {
      if (bad < 5) printf("thread %d: %d != %d\n", i, out[i], r * 1000 + area);
      bad++;
    }
  }
  CHECK(cudaFree(dsel));
  CHECK(cudaFree(dout));
  return report("func_pointers", bad);
}
