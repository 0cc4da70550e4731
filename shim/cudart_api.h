/* Entry points implemented in Python (cffi embedding_api).
 *
 * Contract: pointer-only prototypes, no struct passed by value (the C wrappers in
 * cudart_wrappers.c convert dim3-by-value to pointers), enums as int, handles as void*.
 * Every function here is forwarded by shim/glue.py to the method of the same name on
 * gpgpusim.runtime.Runtime with every pointer converted to an int address.
 * Names starting with gs_ are internal (hidden by the version script); the others are the
 * CUDA runtime's own exported names.
 */
typedef int cudaError_t;
typedef struct { unsigned int x, y, z; } gs_dim3;

/* registration (CUDA 13 host stubs, crt/host_runtime.h) */
uintptr_t gs_register_fatbinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, void *tid, void *bid,
                            void *bDim, void *gDim, int *wSize);
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                       const char *deviceName, int ext, size_t size, int constant, int global);
void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global);
int gs_init_module(void **fatCubinHandle);
cudaError_t __cudaGetKernel(void **kernel, const void *hostFun);
unsigned int gs_push_call_configuration(const gs_dim3 *grid, const gs_dim3 *block, size_t sharedMem, void *stream);
cudaError_t __cudaPopCallConfiguration(gs_dim3 *grid, gs_dim3 *block, size_t *sharedMem, void *stream);
cudaError_t cudaLaunchKernelExC(const void *config, const void *func, void **args);
cudaError_t cudaLaunchKernelExC_ptsz(const void *config, const void *func, void **args);
cudaError_t gs_launch_kernel(int via_handle, const void *func, const gs_dim3 *grid, const gs_dim3 *block,
                             void **args, size_t sharedMem, void *stream);

/* device */
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaChooseDevice(int *device, const void *prop);
cudaError_t cudaGetDeviceProperties(void *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, int attr, int device);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaDeviceSetLimit(int limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t *pValue, int limit);
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int *flags);
cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);
cudaError_t cudaDriverGetVersion(int *driverVersion);
cudaError_t cudaRuntimeGetVersion(int *runtimeVersion);
cudaError_t cudaMemGetInfo(size_t *free, size_t *total);

/* memory */
cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, int kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, int kind, void *stream);
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, int kind);
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, void *stream);
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset, int kind);
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset, int kind);
cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                    int kind, void *stream);
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      int kind, void *stream);
cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol);
cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol);
cudaError_t cudaPointerGetAttributes(void *attributes, const void *ptr);

/* kernels */
cudaError_t cudaFuncGetAttributes(void *attr, const void *func);
cudaError_t cudaFuncSetAttribute(const void *func, int attr, int value);
cudaError_t cudaFuncSetCacheConfig(const void *func, int cacheConfig);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
                                                          size_t dynamicSMemSize);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func,
                                                                   int blockSize, size_t dynamicSMemSize,
                                                                   unsigned int flags);

/* errors */
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
uintptr_t gs_error_string(int error);
uintptr_t gs_error_name(int error);

/* streams and events */
cudaError_t cudaStreamCreate(void **pStream);
cudaError_t cudaStreamCreateWithFlags(void **pStream, unsigned int flags);
cudaError_t cudaStreamCreateWithPriority(void **pStream, unsigned int flags, int priority);
cudaError_t cudaStreamDestroy(void *stream);
cudaError_t cudaStreamSynchronize(void *stream);
cudaError_t cudaStreamQuery(void *stream);
cudaError_t cudaStreamWaitEvent(void *stream, void *event, unsigned int flags);
cudaError_t cudaEventCreate(void **event);
cudaError_t cudaEventCreateWithFlags(void **event, unsigned int flags);
cudaError_t cudaEventRecord(void *event, void *stream);
cudaError_t cudaEventRecordWithFlags(void *event, void *stream, unsigned int flags);
cudaError_t cudaEventQuery(void *event);
cudaError_t cudaEventSynchronize(void *event);
cudaError_t cudaEventElapsedTime(float *ms, void *start, void *end);
cudaError_t cudaEventDestroy(void *event);

/* more device / memory / kernel entry points (gpgpusim.runtime.api) */
typedef struct { int type; int id; } gs_mem_location;
cudaError_t cudaDeviceSetCacheConfig(int cacheConfig);
cudaError_t cudaDeviceGetCacheConfig(int *pCacheConfig);
cudaError_t cudaDeviceSetSharedMemConfig(int config);
cudaError_t cudaDeviceGetSharedMemConfig(int *pConfig);
cudaError_t cudaFuncSetSharedMemConfig(const void *func, int config);
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);
cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags);
cudaError_t cudaSetValidDevices(int *device_arr, int len);
cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device);
cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId);
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
cudaError_t cudaHostUnregister(void *ptr);
cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost);
cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count);
cudaError_t cudaFuncGetName(const char **name, const void *func);
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func, int numBlocks,
                                                      int blockSize);
cudaError_t cudaStreamAttachMemAsync(void *stream, void *devPtr, size_t length, unsigned int flags);
cudaError_t gs_mem_prefetch(const void *devPtr, size_t count, const gs_mem_location *location,
                            unsigned int flags, void *stream);
cudaError_t gs_mem_advise(const void *devPtr, size_t count, int advice, const gs_mem_location *location);
/* 3D linear memory: cudaPitchedPtr {ptr, pitch, xsize, ysize} and cudaExtent {width, height, depth}
 * arrive by pointer from the C wrappers; cudaMemcpy3DParms is 160 bytes (arrays unsupported) */
cudaError_t gs_malloc3d(void *pitchedDevPtr, const void *extent);
cudaError_t gs_memset3d(const void *pitchedDevPtr, int value, const void *extent, void *stream, int async);
cudaError_t cudaMemcpy3D(const void *p);
cudaError_t cudaMemcpy3DAsync(const void *p, void *stream);

/* streams, capture, graphs: gpgpusim.runtime.stream_api.StreamApi (the streams part), prototypes
 * from CUDA 13 cuda_runtime_api.h with handles and pointers as void*, enums as int */
cudaError_t cudaStreamGetFlags(void *hStream, void *flags);
cudaError_t cudaStreamGetPriority(void *hStream, void *priority);
cudaError_t cudaStreamGetId(void *hStream, void *streamId);
cudaError_t cudaLaunchHostFunc(void *stream, void *fn, void *userData);
cudaError_t cudaStreamAddCallback(void *stream, void *callback, void *userData, unsigned int flags);
cudaError_t cudaMallocAsync(void *devPtr, size_t size, void *hStream);
cudaError_t cudaFreeAsync(void *devPtr, void *hStream);
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, void *src, size_t spitch, size_t width, size_t height, int kind  /* cudaMemcpyKind */, void *stream);
cudaError_t cudaStreamBeginCapture(void *stream, int mode  /* cudaStreamCaptureMode */);
cudaError_t cudaStreamEndCapture(void *stream, void *pGraph);
cudaError_t cudaStreamIsCapturing(void *stream, void *pCaptureStatus);
cudaError_t cudaStreamGetCaptureInfo(void *stream, void *captureStatus_out, void *id_out, void *graph_out, void *dependencies_out, void *edgeData_out, void *numDependencies_out);
cudaError_t cudaThreadExchangeStreamCaptureMode(void *mode);
cudaError_t cudaGraphCreate(void *pGraph, unsigned int flags);
cudaError_t cudaGraphAddKernelNode(void *pGraphNode, void *graph, void *pDependencies, size_t numDependencies, void *pNodeParams);
cudaError_t cudaGraphAddMemcpyNode1D(void *pGraphNode, void *graph, void *pDependencies, size_t numDependencies, void *dst, void *src, size_t count, int kind  /* cudaMemcpyKind */);
cudaError_t cudaGraphAddMemsetNode(void *pGraphNode, void *graph, void *pDependencies, size_t numDependencies, void *pMemsetParams);
cudaError_t cudaGraphAddHostNode(void *pGraphNode, void *graph, void *pDependencies, size_t numDependencies, void *pNodeParams);
cudaError_t cudaGraphAddEmptyNode(void *pGraphNode, void *graph, void *pDependencies, size_t numDependencies);
cudaError_t cudaGraphGetNodes(void *graph, void *nodes, void *numNodes);
cudaError_t cudaGraphGetRootNodes(void *graph, void *pRootNodes, void *pNumRootNodes);
cudaError_t cudaGraphNodeGetType(void *node, void *pType);
cudaError_t cudaGraphInstantiate(void *pGraphExec, void *graph, unsigned long long flags);
cudaError_t cudaGraphInstantiateWithFlags(void *pGraphExec, void *graph, unsigned long long flags);
cudaError_t cudaGraphLaunch(void *graphExec, void *stream);
cudaError_t cudaGraphExecDestroy(void *graphExec);
cudaError_t cudaGraphDestroy(void *graph);
cudaError_t cudaStreamGetFlags_ptsz(void *hStream, void *flags);
cudaError_t cudaStreamGetPriority_ptsz(void *hStream, void *priority);
cudaError_t cudaStreamGetId_ptsz(void *hStream, void *streamId);
cudaError_t cudaLaunchHostFunc_ptsz(void *stream, void *fn, void *userData);
cudaError_t cudaStreamAddCallback_ptsz(void *stream, void *callback, void *userData, unsigned int flags);
cudaError_t cudaMallocAsync_ptsz(void *devPtr, size_t size, void *hStream);
cudaError_t cudaFreeAsync_ptsz(void *devPtr, void *hStream);
cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, void *src, size_t spitch, size_t width, size_t height, int kind  /* cudaMemcpyKind */, void *stream);
cudaError_t cudaStreamBeginCapture_ptsz(void *stream, int mode  /* cudaStreamCaptureMode */);
cudaError_t cudaStreamEndCapture_ptsz(void *stream, void *pGraph);
cudaError_t cudaStreamIsCapturing_ptsz(void *stream, void *pCaptureStatus);
cudaError_t cudaStreamGetCaptureInfo_ptsz(void *stream, void *captureStatus_out, void *id_out, void *graph_out, void *dependencies_out, void *edgeData_out, void *numDependencies_out);
cudaError_t cudaGraphLaunch_ptsz(void *graphExec, void *stream);
/* synchronous calls of --default-stream per-thread binaries: the plain call on the calling
 * thread's per-thread default stream (StreamApi.*_ptds) */
cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, int kind);
cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count);
cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                              size_t height, int kind);
cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count, size_t offset,
                                    int kind);
cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count, size_t offset,
                                      int kind);
cudaError_t cudaMemcpy3D_ptds(const void *p);

/* more of gpgpusim.runtime.stream_api.StreamApi: graph edges/clones/updates, capture to
 * graph, memory pools, _ptsz */
cudaError_t cudaGraphAddMemcpyNode(void **pGraphNode, void *graph, void *pDependencies,
                                   size_t numDependencies, const void *pCopyParams);
cudaError_t cudaGraphAddChildGraphNode(void **pGraphNode, void *graph, void *pDependencies,
                                       size_t numDependencies, void *childGraph);
cudaError_t cudaGraphAddEventRecordNode(void **pGraphNode, void *graph, void *pDependencies,
                                        size_t numDependencies, void *event);
cudaError_t cudaGraphAddEventWaitNode(void **pGraphNode, void *graph, void *pDependencies,
                                      size_t numDependencies, void *event);
cudaError_t cudaGraphAddDependencies(void *graph, void *from, void *to, void *edgeData,
                                     size_t numDependencies);
cudaError_t cudaGraphRemoveDependencies(void *graph, void *from, void *to, void *edgeData,
                                        size_t numDependencies);
cudaError_t cudaGraphGetEdges(void *graph, void **from, void **to, void *edgeData, size_t *numEdges);
cudaError_t cudaGraphClone(void **pGraphClone, void *originalGraph);
cudaError_t cudaGraphNodeFindInClone(void **pNode, void *originalNode, void *clonedGraph);
cudaError_t cudaGraphDestroyNode(void *node);
cudaError_t cudaGraphKernelNodeSetParams(void *node, const void *pNodeParams);
cudaError_t cudaGraphExecKernelNodeSetParams(void *hGraphExec, void *node, const void *pNodeParams);
cudaError_t cudaGraphExecMemsetNodeSetParams(void *hGraphExec, void *node, const void *pNodeParams);
cudaError_t cudaGraphExecHostNodeSetParams(void *hGraphExec, void *node, const void *pNodeParams);
cudaError_t cudaGraphExecMemcpyNodeSetParams1D(void *hGraphExec, void *node, void *dst, const void *src,
                                               size_t count, int kind);
cudaError_t cudaStreamGetDevice(void *hStream, int *device);
cudaError_t cudaStreamBeginCaptureToGraph(void *stream, void *graph, void *dependencies, void *dependencyData,
                                          size_t numDependencies, int mode);
cudaError_t cudaStreamUpdateCaptureDependencies(void *stream, void *dependencies, void *dependencyData,
                                                size_t numDependencies, unsigned int flags);
cudaError_t cudaStreamGetDevice_ptsz(void *hStream, int *device);
cudaError_t cudaStreamAttachMemAsync_ptsz(void *stream, void *devPtr, size_t length, unsigned int flags);
cudaError_t cudaStreamBeginCaptureToGraph_ptsz(void *stream, void *graph, void *dependencies,
                                               void *dependencyData, size_t numDependencies, int mode);
cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(void *stream, void *dependencies, void *dependencyData,
                                                     size_t numDependencies, unsigned int flags);
cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, void *memPool, void *stream);
cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, void *memPool, void *stream);
cudaError_t cudaDeviceGetDefaultMemPool(void **memPool, int device);
cudaError_t cudaDeviceGetMemPool(void **memPool, int device);
cudaError_t cudaDeviceSetMemPool(int device, void *memPool);
cudaError_t cudaMemPoolCreate(void **memPool, const void *poolProps);
cudaError_t cudaMemPoolDestroy(void *memPool);
cudaError_t cudaMemPoolTrimTo(void *memPool, size_t minBytesToKeep);
cudaError_t cudaMemPoolSetAttribute(void *memPool, int attr, void *value);
cudaError_t cudaMemPoolGetAttribute(void *memPool, int attr, void *value);
cudaError_t cudaGraphHostNodeSetParams(void *node, const void *pNodeParams);
cudaError_t cudaGraphHostNodeGetParams(void *node, void *pNodeParams);
cudaError_t cudaGraphMemsetNodeSetParams(void *node, const void *pNodeParams);
cudaError_t cudaGraphMemcpyNodeSetParams1D(void *node, void *dst, const void *src, size_t count, int kind);
cudaError_t cudaGraphNodeGetDependencies(void *node, void **pDependencies, void *edgeData,
                                         size_t *pNumDependencies);
cudaError_t cudaGraphNodeGetDependentNodes(void *node, void **pDependentNodes, void *edgeData,
                                           size_t *pNumDependentNodes);
cudaError_t cudaGraphInstantiateWithParams(void **pGraphExec, void *graph, void *instantiateParams);
cudaError_t cudaGraphInstantiateWithParams_ptsz(void **pGraphExec, void *graph, void *instantiateParams);
cudaError_t cudaGraphExecGetFlags(void *graphExec, unsigned long long *flags);
cudaError_t cudaGraphExecUpdate(void *hGraphExec, void *hGraph, void *resultInfo);
cudaError_t cudaGraphDebugDotPrint(void *graph, const char *path, unsigned int flags);
cudaError_t cudaGraphUpload(void *graphExec, void *stream);
cudaError_t cudaGraphUpload_ptsz(void *graphExec, void *stream);

cudaError_t cudaStreamSetAttribute(void *stream, int attr, const void *value);
cudaError_t cudaStreamGetAttribute(void *stream, int attr, void *value);
cudaError_t cudaStreamCopyAttributes(void *dst, void *src);
cudaError_t cudaStreamSetAttribute_ptsz(void *stream, int attr, const void *value);
cudaError_t cudaStreamGetAttribute_ptsz(void *stream, int attr, void *value);
cudaError_t cudaStreamCopyAttributes_ptsz(void *dst, void *src);

/* CUDA arrays, texture and surface objects: gpgpusim.runtime.textures.TextureApi (structures
 * by pointer; cudaArray_t as void*, cudaTextureObject_t/cudaSurfaceObject_t as unsigned long long) */
cudaError_t cudaMallocArray(void **array, const void *desc, size_t width, size_t height, unsigned int flags);
cudaError_t gs_malloc3d_array(void **array, const void *desc, const void *extent, unsigned int flags);
cudaError_t cudaFreeArray(void *array);
cudaError_t cudaGetChannelDesc(void *desc, const void *array);
cudaError_t cudaArrayGetInfo(void *desc, void *extent, unsigned int *flags, void *array);
cudaError_t cudaMemcpy2DToArray(void *dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                                size_t width, size_t height, int kind);
cudaError_t cudaMemcpy2DToArrayAsync(void *dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                                     size_t width, size_t height, int kind, void *stream);
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, const void *src, size_t wOffset, size_t hOffset,
                                  size_t width, size_t height, int kind);
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, const void *src, size_t wOffset,
                                       size_t hOffset, size_t width, size_t height, int kind, void *stream);
cudaError_t cudaMemcpyToArray(void *dst, size_t wOffset, size_t hOffset, const void *src, size_t count, int kind);
cudaError_t cudaMemcpyFromArray(void *dst, const void *src, size_t wOffset, size_t hOffset, size_t count,
                                int kind);
cudaError_t cudaCreateTextureObject(unsigned long long *pTexObject, const void *pResDesc, const void *pTexDesc,
                                    const void *pResViewDesc);
cudaError_t cudaDestroyTextureObject(unsigned long long texObject);
cudaError_t cudaGetTextureObjectResourceDesc(void *pResDesc, unsigned long long texObject);
cudaError_t cudaGetTextureObjectTextureDesc(void *pTexDesc, unsigned long long texObject);
cudaError_t cudaCreateSurfaceObject(unsigned long long *pSurfObject, const void *pResDesc);
cudaError_t cudaDestroySurfaceObject(unsigned long long surfObject);
cudaError_t cudaGetSurfaceObjectResourceDesc(void *pResDesc, unsigned long long surfObject);

/* the shim's own services */
cudaError_t gs_not_supported(const char *name);
void gs_process_exit(void);
