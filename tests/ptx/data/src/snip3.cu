__managed__ int mcount = 5;
__managed__ float mbuf[4];
__device__ int dflag;
__global__ void inc(int n) { mcount += n; mbuf[threadIdx.x & 3] = 1.0f; dflag = 1; }
