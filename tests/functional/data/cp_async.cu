// cp.async kernels (PTX: nvcc -ptx -O2 -arch=sm_80 cp_async.cu -o cp_async.ptx)
#include <cuda_pipeline.h>
extern "C" __global__ void k(const float *in, float *out) {
  __shared__ float s[256];
  __pipeline_memcpy_async(&s[threadIdx.x], &in[blockIdx.x * 256 + threadIdx.x], sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[255 - threadIdx.x] * 2.0f;
}
extern "C" __global__ void k16(const float4 *in, float4 *out) {
  __shared__ float4 s[64];
  __pipeline_memcpy_async(&s[threadIdx.x], &in[threadIdx.x], sizeof(float4));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[threadIdx.x] = s[63 - threadIdx.x];
}
