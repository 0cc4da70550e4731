// Probe of the gpgpusim libcudart through a real nvcc 13 binary: prints key=value lines that
// tests/shim/test_shim.py checks.  Kernels are only launched when argv[1] == "run".
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__device__ int dev_value = 41;
__constant__ int const_table[4];


__global__ void add_one(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1 + const_table[i % 4] + dev_value;
}

__global__ void hello(int x)
{
    printf("device says %d from thread %d\n", x, threadIdx.x);
}

int main(int argc, char **argv)
{
    int count = -1;
    int rc = (int)cudaGetDeviceCount(&count);
    printf("rc=%d device_count=%d\n", rc, count);
    cudaDeviceProp prop;
    memset(&prop, 0, sizeof prop);
    rc = (int)cudaGetDeviceProperties(&prop, 0);
    printf("props_rc=%d sms=%d warp=%d major=%d name=%s\n", rc, prop.multiProcessorCount, prop.warpSize,
           prop.major, prop.name);
    printf("set_device_5=%d\n", (int)cudaSetDevice(5));
    int e1 = (int)cudaGetLastError(), e2 = (int)cudaGetLastError();
    printf("last=%d again=%d\n", e1, e2);
    int *d = nullptr;
    rc = (int)cudaMalloc(&d, 64 * sizeof(int));
    printf("malloc=%d aligned=%d\n", rc, (int)(((size_t)d % 256) == 0));
    e1 = (int)cudaFree(d);
    e2 = (int)cudaFree(d);
    printf("free=%d double_free=%d\n", e1, e2);
    printf("err_string=%s err_name=%s\n", cudaGetErrorString(cudaErrorInvalidValue),
           cudaGetErrorName(cudaErrorInvalidValue));
    int v = 0;
    rc = (int)cudaMemcpyFromSymbol(&v, dev_value, sizeof v);
    printf("from_symbol=%d value=%d\n", rc, v);
    int table[4] = {1, 2, 3, 4};
    printf("to_symbol=%d\n", (int)cudaMemcpyToSymbol(const_table, table, sizeof table));
    printf("to_symbol_too_big=%d\n", (int)cudaMemcpyToSymbol(const_table, table, 2 * sizeof table));
    cudaGetLastError();
    cudaGraph_t graph;
    cudaUserObject_t obj;
    e1 = (int)cudaUserObjectCreate(&obj, nullptr, nullptr, 1, 1);
    e2 = (int)cudaGetLastError();
    printf("unsupported=%d last=%d\n", e1, e2);
    printf("graph_create=%d\n", (int)cudaGraphCreate(&graph, 0));
    cudaGraphDestroy(graph);
    int *m = nullptr;
    rc = (int)cudaMallocManaged(&m, 4096);
    cudaMemLocation loc;
    loc.type = cudaMemLocationTypeDevice;
    loc.id = 0;
    e1 = (int)cudaMemPrefetchAsync(m, 4096, loc, 0, 0);
    e2 = (int)cudaMemAdvise(m, 4096, cudaMemAdviseSetReadMostly, loc);
    loc.id = 7;
    int e3 = (int)cudaMemPrefetchAsync(m, 4096, loc, 0, 0);
    printf("managed_alloc=%d prefetch=%d advise=%d prefetch_bad_device=%d\n", rc, e1, e2, e3);
    cudaGetLastError();
    cudaLaunchConfig_t lc = {};
    lc.gridDim = dim3(1);
    lc.blockDim = dim3(32);
    cudaLaunchAttribute la[1];
    la[0].id = cudaLaunchAttributeClusterDimension;
    la[0].val.clusterDim.x = 2;
    la[0].val.clusterDim.y = 1;
    la[0].val.clusterDim.z = 1;
    lc.attrs = la;
    lc.numAttrs = 1;
    rc = (int)cudaLaunchKernelEx(&lc, add_one, (int *)nullptr, 0);
    printf("launch_ex_cluster=%d\n", rc);
    cudaGetLastError();
    {
        cudaPitchedPtr pp;
        cudaExtent ext = make_cudaExtent(10, 3, 2);
        int r1 = (int)cudaMalloc3D(&pp, ext);
        int r2 = (int)cudaMemset3D(pp, 7, ext);
        unsigned char box[60];
        memset(box, 0, sizeof box);
        cudaMemcpy3DParms cp = {};
        cp.srcPtr = pp;
        cp.dstPtr = make_cudaPitchedPtr(box, 10, 10, 3);
        cp.extent = ext;
        cp.kind = cudaMemcpyDeviceToHost;
        int r3 = (int)cudaMemcpy3D(&cp);
        int sevens = 0;
        for (int i = 0; i < 60; i++) sevens += box[i] == 7;
        printf("malloc3d=%d pitch=%d memset3d=%d memcpy3d=%d sevens=%d\n", r1, (int)pp.pitch, r2, r3, sevens);
    }
    int min_grid = 0, best_block = 0;
    rc = (int)cudaOccupancyMaxPotentialBlockSize(&min_grid, &best_block, add_one, 0, 0);
    printf("potential_rc=%d min_grid=%d best_block=%d\n", rc, min_grid, best_block);
    cudaFuncAttributes fa;
    rc = (int)cudaFuncGetAttributes(&fa, add_one);
    printf("func_attr_rc=%d func_regs=%d func_max_threads=%d\n", rc, fa.numRegs, fa.maxThreadsPerBlock);
    add_one<<<1, 2048>>>(nullptr, 0);
    printf("bad_launch=%d\n", (int)cudaGetLastError());
    if (argc > 1 && strcmp(argv[1], "run") == 0) {
        int h[64], *dp;
        for (int i = 0; i < 64; i++) h[i] = i;
        cudaMalloc(&dp, sizeof h);
        cudaMemcpy(dp, h, sizeof h, cudaMemcpyHostToDevice);
        add_one<<<2, 32>>>(dp, 64);
        cudaMemcpy(h, dp, sizeof h, cudaMemcpyDeviceToHost);
        int ok = 1;
        for (int i = 0; i < 64; i++) ok &= h[i] == i + 1 + table[i % 4] + 41;
        printf("kernel=%s\n", ok ? "PASS" : "FAIL");
        printf("host before\n");
        fflush(stdout);
        hello<<<1, 2>>>(7);
        cudaDeviceSynchronize();
        printf("host after\n");
    }
    return 0;
}
