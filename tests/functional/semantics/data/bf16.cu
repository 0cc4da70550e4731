#include <cuda_bf16.h>
__global__ void kb(__nv_bfloat16 *b, __nv_bfloat162 *b2, float x) {
  b[1] = __hadd(b[2], b[3]); b[2] = __hfma(b[3], b[4], b[5]); b2[0] = __hmul2(b2[1], b2[2]); b[3] = __hmax(b[1], b[2]); b[4] = hexp2(b[5]);
  b2[3] = __hfma2_relu(b2[1], b2[2], b2[0]); atomicAdd(b2, b2[4]); atomicAdd(b, b[6]);
}
