// Training kernels for the profile-guided build of the compiled performance model
// (gpgpusim/timing/native.py, build(pgo=True)).  They only have to make the model take its
// common paths: shared-memory tiles and barriers, FMA chains, streaming and strided global
// traffic (L1D, L2, DRAM), atomics, divergence and special functions.  train.ptx is this file
// compiled with `nvcc -ptx -arch=compute_75 -o train.ptx train.cu` and is what the build reads.
#define TILE 16

__global__ void tile_mm(const float *a, const float *b, float *c, int n) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < n / TILE; t++) {
    as[threadIdx.y][threadIdx.x] = a[row * n + t * TILE + threadIdx.x];
    bs[threadIdx.y][threadIdx.x] = b[(t * TILE + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; k++) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

__global__ void gather(const float *x, float *y, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[(int)(((long long)i * stride) % n)] + 1.0f;
}

__global__ void bins(const int *x, int *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&h[x[i] & 31], 1);
}

__global__ void branchy(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = (float)i;
  if (i & 1) {
    for (int k = 0; k < 8; k++) v = __sinf(v) * 1.5f + 0.25f;
  } else {
    for (int k = 0; k < 4; k++) v = sqrtf(v + 1.0f) * 0.5f;
  }
  y[i] = v;
}
