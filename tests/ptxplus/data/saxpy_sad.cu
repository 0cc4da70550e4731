#include <cstdio>
#include <cstdlib>
#include <cstring>
__global__ void saxpy(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void sad(const unsigned *a, const unsigned *b, unsigned *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = __sad(a[i], b[i], c[i]);
    __nanosleep(16);   // NANOSLEEP: an opcode the PTXPlus converter does not handle
}
int main(int argc, char **argv) {
    const int n = 1000;
    float *x, *y; unsigned *ua, *ub, *uc;
    cudaMallocManaged(&x, n * sizeof(float)); cudaMallocManaged(&y, n * sizeof(float));
    cudaMallocManaged(&ua, n * 4); cudaMallocManaged(&ub, n * 4); cudaMallocManaged(&uc, n * 4);
    for (int i = 0; i < n; i++) { x[i] = i; y[i] = 2 * i; ua[i] = i * 7; ub[i] = 3000 - i; uc[i] = 1; }
    saxpy<<<(n + 127) / 128, 128>>>(n, 3.0f, x, y);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("saxpy: %s\n", cudaGetErrorName(e)); return 1; }
    for (int i = 0; i < n; i++) if (y[i] != 5.0f * i) { printf("saxpy mismatch at %d\n", i); return 1; }
    printf("saxpy ok\n");
    if (argc > 1 && !strcmp(argv[1], "sad")) {
        sad<<<(n + 127) / 128, 128>>>(ua, ub, uc, n);
        e = cudaGetLastError();
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        if (e != cudaSuccess) { printf("sad: %s\n", cudaGetErrorName(e)); return 1; }
        for (int i = 0; i < n; i++) {
            unsigned d = ua[i] > ub[i] ? ua[i] - ub[i] : ub[i] - ua[i];
            if (uc[i] != d + 1) { printf("sad mismatch at %d\n", i); return 1; }
        }
        printf("sad ok\n");
    }
    printf("PASS\n");
    return 0;
}
