"""CUDA 13 ABI types and raw host-memory access for the runtime (ctypes, no cffi).

Layouts are facts from CUDA 13's ``driver_types.h`` / ``vector_types.h``: ``dim3``,
``cudaDeviceProp`` (CUDA 13 removed ``clockRate``/``memoryClockRate`` and friends from it),
``cudaFuncAttributes``, ``cudaPointerAttributes``.  Every pointer the runtime sees is an int
address in the application's process; these helpers read and write through it.
"""

from __future__ import annotations

import ctypes
import struct

c_int, c_uint, c_size_t, c_char, c_long = ctypes.c_int, ctypes.c_uint, ctypes.c_size_t, ctypes.c_char, ctypes.c_long


class CudaDeviceProp(ctypes.Structure):
    """``struct cudaDeviceProp`` (CUDA 13)."""

    _fields_ = [
        ("name", c_char * 256), ("uuid", c_char * 16), ("luid", c_char * 8),
        ("luidDeviceNodeMask", c_uint), ("totalGlobalMem", c_size_t), ("sharedMemPerBlock", c_size_t),
        ("regsPerBlock", c_int), ("warpSize", c_int), ("memPitch", c_size_t),
        ("maxThreadsPerBlock", c_int), ("maxThreadsDim", c_int * 3), ("maxGridSize", c_int * 3),
        ("totalConstMem", c_size_t), ("major", c_int), ("minor", c_int),
        ("textureAlignment", c_size_t), ("texturePitchAlignment", c_size_t),
        ("multiProcessorCount", c_int), ("integrated", c_int), ("canMapHostMemory", c_int),
        ("maxTexture1D", c_int), ("maxTexture1DMipmap", c_int), ("maxTexture2D", c_int * 2),
        ("maxTexture2DMipmap", c_int * 2), ("maxTexture2DLinear", c_int * 3),
        ("maxTexture2DGather", c_int * 2), ("maxTexture3D", c_int * 3), ("maxTexture3DAlt", c_int * 3),
        ("maxTextureCubemap", c_int), ("maxTexture1DLayered", c_int * 2),
        ("maxTexture2DLayered", c_int * 3), ("maxTextureCubemapLayered", c_int * 2),
        ("maxSurface1D", c_int), ("maxSurface2D", c_int * 2), ("maxSurface3D", c_int * 3),
        ("maxSurface1DLayered", c_int * 2), ("maxSurface2DLayered", c_int * 3),
        ("maxSurfaceCubemap", c_int), ("maxSurfaceCubemapLayered", c_int * 2),
        ("surfaceAlignment", c_size_t), ("concurrentKernels", c_int), ("ECCEnabled", c_int),
        ("pciBusID", c_int), ("pciDeviceID", c_int), ("pciDomainID", c_int), ("tccDriver", c_int),
        ("asyncEngineCount", c_int), ("unifiedAddressing", c_int), ("memoryBusWidth", c_int),
        ("l2CacheSize", c_int), ("persistingL2CacheMaxSize", c_int),
        ("maxThreadsPerMultiProcessor", c_int), ("streamPrioritiesSupported", c_int),
        ("globalL1CacheSupported", c_int), ("localL1CacheSupported", c_int),
        ("sharedMemPerMultiprocessor", c_size_t), ("regsPerMultiprocessor", c_int),
        ("managedMemory", c_int), ("isMultiGpuBoard", c_int), ("multiGpuBoardGroupID", c_int),
        ("hostNativeAtomicSupported", c_int), ("pageableMemoryAccess", c_int),
        ("concurrentManagedAccess", c_int), ("computePreemptionSupported", c_int),
        ("canUseHostPointerForRegisteredMem", c_int), ("cooperativeLaunch", c_int),
        ("sharedMemPerBlockOptin", c_size_t), ("pageableMemoryAccessUsesHostPageTables", c_int),
        ("directManagedMemAccessFromHost", c_int), ("maxBlocksPerMultiProcessor", c_int),
        ("accessPolicyMaxWindowSize", c_int), ("reservedSharedMemPerBlock", c_size_t),
        ("hostRegisterSupported", c_int), ("sparseCudaArraySupported", c_int),
        ("hostRegisterReadOnlySupported", c_int), ("timelineSemaphoreInteropSupported", c_int),
        ("memoryPoolsSupported", c_int), ("gpuDirectRDMASupported", c_int),
        ("gpuDirectRDMAFlushWritesOptions", c_uint), ("gpuDirectRDMAWritesOrdering", c_int),
        ("memoryPoolSupportedHandleTypes", c_uint), ("deferredMappingCudaArraySupported", c_int),
        ("ipcEventSupported", c_int), ("clusterLaunch", c_int), ("unifiedFunctionPointers", c_int),
        ("deviceNumaConfig", c_int), ("deviceNumaId", c_int), ("mpsEnabled", c_int),
        ("hostNumaId", c_int), ("gpuPciDeviceID", c_uint), ("gpuPciSubsystemID", c_uint),
        ("hostNumaMultinodeIpcSupported", c_int), ("reserved", c_int * 56),
    ]


class CudaFuncAttributes(ctypes.Structure):
    """``struct cudaFuncAttributes`` (CUDA 13)."""

    _fields_ = [
        ("sharedSizeBytes", c_size_t), ("constSizeBytes", c_size_t), ("localSizeBytes", c_size_t),
        ("maxThreadsPerBlock", c_int), ("numRegs", c_int), ("ptxVersion", c_int),
        ("binaryVersion", c_int), ("cacheModeCA", c_int), ("maxDynamicSharedSizeBytes", c_int),
        ("preferredShmemCarveout", c_int), ("clusterDimMustBeSet", c_int),
        ("requiredClusterWidth", c_int), ("requiredClusterHeight", c_int),
        ("requiredClusterDepth", c_int), ("clusterSchedulingPolicyPreference", c_int),
        ("nonPortableClusterSizeAllowed", c_int), ("reserved", c_int * 16),
    ]


class CudaPointerAttributes(ctypes.Structure):
    """``struct cudaPointerAttributes``; ``type`` is ``cudaMemoryType`` (0 unregistered,
    1 host, 2 device, 3 managed)."""

    _fields_ = [("type", c_int), ("device", c_int), ("devicePointer", ctypes.c_void_p),
                ("hostPointer", ctypes.c_void_p), ("reserved", c_long * 8)]


def read(addr: int, n: int) -> bytes:
    return ctypes.string_at(addr, n) if n else b""


def write(addr: int, data: bytes | bytearray | memoryview) -> None:
    if len(data):
        ctypes.memmove(addr, bytes(data), len(data))


def write_u64(addr: int, value: int) -> None:
    ctypes.c_uint64.from_address(addr).value = value & 0xFFFFFFFFFFFFFFFF


def write_i32(addr: int, value: int) -> None:
    ctypes.c_int32.from_address(addr).value = value


def write_u32(addr: int, value: int) -> None:
    ctypes.c_uint32.from_address(addr).value = value & 0xFFFFFFFF


def write_f32(addr: int, value: float) -> None:
    ctypes.c_float.from_address(addr).value = value


def read_u64(addr: int) -> int:
    return ctypes.c_uint64.from_address(addr).value


def read_dim3(addr: int) -> tuple[int, int, int]:
    return struct.unpack("<3I", ctypes.string_at(addr, 12))  # type: ignore[return-value]


def write_dim3(addr: int, dims: tuple[int, int, int]) -> None:
    ctypes.memmove(addr, struct.pack("<3I", *dims), 12)


def read_cstr(addr: int) -> str:
    return ctypes.string_at(addr).decode("utf-8", "replace") if addr else ""
