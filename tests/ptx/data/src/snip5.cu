__device__ int garr[4];
struct T { int a; int b; int *p; float f; char c; };
__device__ T tval = {1, 2, garr + 1, 1.5f, 'x'};
struct __attribute__((packed)) P { char c; int *p; };
__device__ P pval = {'z', garr};
__global__ void k(int *o) { o[0] = tval.a + *tval.p + pval.c + *pval.p; }
