#include <cuda_fp8.h>
__global__ void k8(float *f, __nv_fp8x2_e4m3 *p, __nv_fp8x2_e5m2 *q, __half2 *h) {
  p[0] = __nv_fp8x2_e4m3(make_float2(f[0], f[1]));
  q[0] = __nv_fp8x2_e5m2(make_float2(f[2], f[3]));
  p[1] = __nv_fp8x2_e4m3(h[0]);
  h[1] = (__half2)p[2];
  h[2] = (__half2)q[2];
}
