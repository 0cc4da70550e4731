"""The simulated device: its count, properties and attributes, limits, flags, cache and
shared-memory configuration, versions and PCI identity (one device, number 0).  GPGPU-Sim
counterpart: ``cudaGetDevice*`` / ``cudaDeviceSet*`` of ``libcuda/cuda_runtime_api.cc`` (C026)."""

from __future__ import annotations

import ctypes
from typing import Any

from gpgpusim.errors import CudaError, Err

from . import abi
from .device import DEFINED_DEVICE_ATTRIBUTES
from .service import ApiError, Service, api
from .service import check_ptr as _check_ptr
from .stream_state import PRIORITY_GREATEST, PRIORITY_LEAST

CUDART_VERSION = 13000          # CUDA 13.0 (cudaRuntimeGetVersion / cudaDriverGetVersion)
INVALID_DEVICE_ID = -2          # cudaInvalidDeviceId
# cudaLimit defaults (CUDA's on Volta)
LIMIT_DEFAULTS = {0: 1024, 1: 1 << 20, 2: 8 << 20, 3: 2, 4: 2048, 5: 32, 6: 0}
ERR_UNSUPPORTED_LIMIT = 215     # cudaErrorUnsupportedLimit
PCI_BUS_ID = "0000:00:00.0"     # the simulated device's PCI bus id


class DeviceApi(Service):
    """See the module docstring."""

    def __init__(self, rt: Any) -> None:
        super().__init__(rt)
        self._limits = dict(LIMIT_DEFAULTS)
        self._device_flags = 0
        self._cache_config = 0
        self._smem_config = 0

    def reset(self) -> None:
        """``cudaDeviceReset``: limits and flags back to their defaults."""
        self._limits = dict(LIMIT_DEFAULTS)
        self._device_flags = 0

    @api
    def cudaGetDeviceCount(self, count: int) -> None:
        _check_ptr(count, "cudaGetDeviceCount: count")
        abi.write_i32(count, 1)

    @api
    def cudaGetDevice(self, device: int) -> None:
        _check_ptr(device, "cudaGetDevice: device")
        abi.write_i32(device, 0)

    @staticmethod
    def _check_device(device: int, what: str) -> None:
        if device != 0:
            raise CudaError(Err.InvalidDevice, f"{what}: device {device} does not exist (the simulator has device 0)")

    @api
    def cudaSetDevice(self, device: int) -> None:
        self._check_device(device, "cudaSetDevice")

    @api
    def cudaChooseDevice(self, device: int, prop: int) -> None:
        _check_ptr(device, "cudaChooseDevice: device")
        _check_ptr(prop, "cudaChooseDevice: prop")
        abi.write_i32(device, 0)

    @api
    def cudaGetDeviceProperties(self, prop: int, device: int) -> None:
        _check_ptr(prop, "cudaGetDeviceProperties: prop")
        self._check_device(device, "cudaGetDeviceProperties")
        self.rt.device.fill(abi.CudaDeviceProp.from_address(prop))

    @api
    def cudaDeviceGetAttribute(self, value: int, attr: int, device: int) -> None:
        _check_ptr(value, "cudaDeviceGetAttribute: value")
        self._check_device(device, "cudaDeviceGetAttribute")
        if attr not in DEFINED_DEVICE_ATTRIBUTES:
            raise CudaError(Err.InvalidValue, f"cudaDeviceGetAttribute: {attr} is not a cudaDeviceAttr")
        abi.write_i32(value, self.rt.device.attributes().get(attr, 0))

    @api
    def cudaDeviceSynchronize(self) -> None:
        self.rt.streams.synchronize_device()

    @api
    def cudaDeviceSetLimit(self, limit: int, value: int) -> None:
        if limit not in LIMIT_DEFAULTS:
            raise ApiError(ERR_UNSUPPORTED_LIMIT, f"cudaDeviceSetLimit: {limit} is not a cudaLimit")
        if limit == 5 and value > 128:
            raise CudaError(Err.InvalidValue, "cudaDeviceSetLimit: cudaLimitMaxL2FetchGranularity must be 0..128")
        self._limits[limit] = int(value)

    @api
    def cudaDeviceGetLimit(self, p_value: int, limit: int) -> None:
        _check_ptr(p_value, "cudaDeviceGetLimit: pValue")
        if limit not in LIMIT_DEFAULTS:
            raise ApiError(ERR_UNSUPPORTED_LIMIT, f"cudaDeviceGetLimit: {limit} is not a cudaLimit")
        abi.write_u64(p_value, self._limits[limit])

    @api
    def cudaSetDeviceFlags(self, flags: int) -> None:
        # cudaDeviceSchedule* (one of 0, 1, 2, 4) | MapHost 0x08 | LmemResizeToMax 0x10 | SyncMemops 0x80
        sched = flags & 0x07
        if flags & ~0x9F or sched not in (0, 1, 2, 4):
            raise CudaError(Err.InvalidValue, f"cudaSetDeviceFlags: invalid flags {flags:#x}")
        self._device_flags = flags

    @api
    def cudaGetDeviceFlags(self, flags: int) -> None:
        _check_ptr(flags, "cudaGetDeviceFlags: flags")
        abi.write_u32(flags, self._device_flags | 0x08)   # cudaDeviceMapHost is always on

    @api
    def cudaDeviceGetStreamPriorityRange(self, least: int, greatest: int) -> None:
        if least:
            abi.write_i32(least, PRIORITY_LEAST)
        if greatest:
            abi.write_i32(greatest, PRIORITY_GREATEST)

    @api
    def cudaDriverGetVersion(self, version: int) -> None:
        _check_ptr(version, "cudaDriverGetVersion: driverVersion")
        abi.write_i32(version, CUDART_VERSION)

    @api
    def cudaRuntimeGetVersion(self, version: int) -> None:
        _check_ptr(version, "cudaRuntimeGetVersion: runtimeVersion")
        abi.write_i32(version, CUDART_VERSION)

    @api
    def cudaDeviceSetCacheConfig(self, cache_config: int) -> None:
        if cache_config not in (0, 1, 2, 3):
            raise CudaError(Err.InvalidValue, f"cudaDeviceSetCacheConfig: {cache_config} is not a cudaFuncCache")
        self._cache_config = cache_config

    @api
    def cudaDeviceGetCacheConfig(self, p_config: int) -> None:
        _check_ptr(p_config, "cudaDeviceGetCacheConfig: pCacheConfig")
        abi.write_i32(p_config, self._cache_config)

    @api
    def cudaDeviceSetSharedMemConfig(self, config: int) -> None:
        if config not in (0, 1, 2):
            raise CudaError(Err.InvalidValue, f"cudaDeviceSetSharedMemConfig: {config} is not a cudaSharedMemConfig")
        self._smem_config = config

    @api
    def cudaDeviceGetSharedMemConfig(self, p_config: int) -> None:
        _check_ptr(p_config, "cudaDeviceGetSharedMemConfig: pConfig")
        abi.write_i32(p_config, self._smem_config)

    @api
    def cudaProfilerStart(self) -> None:
        """Profiling ranges: the simulator always collects its statistics (nothing to start)."""

    @api
    def cudaProfilerStop(self) -> None:
        """See :meth:`cudaProfilerStart`."""

    @api
    def cudaInitDevice(self, device: int, device_flags: int, flags: int) -> None:
        self._check_device(device, "cudaInitDevice")
        if flags & ~1:
            raise CudaError(Err.InvalidValue, f"cudaInitDevice: invalid flags {flags:#x}")
        if device_flags:
            self.cudaSetDeviceFlags(device_flags)

    @api
    def cudaSetValidDevices(self, device_arr: int, length: int) -> None:
        if length < 0 or (length and not device_arr):
            raise CudaError(Err.InvalidValue, "cudaSetValidDevices: bad device list")
        for d in (ctypes.c_int * length).from_address(device_arr) if length else ():
            self._check_device(d, "cudaSetValidDevices")

    @api
    def cudaDeviceCanAccessPeer(self, can_access: int, device: int, peer: int) -> None:
        _check_ptr(can_access, "cudaDeviceCanAccessPeer: canAccessPeer")
        self._check_device(device, "cudaDeviceCanAccessPeer")
        self._check_device(peer, "cudaDeviceCanAccessPeer (peer)")
        abi.write_i32(can_access, 0)      # a device is not its own peer

    @api
    def cudaDeviceGetPCIBusId(self, buf: int, length: int, device: int) -> None:
        _check_ptr(buf, "cudaDeviceGetPCIBusId: pciBusId")
        self._check_device(device, "cudaDeviceGetPCIBusId")
        if length <= 0:
            raise CudaError(Err.InvalidValue, f"cudaDeviceGetPCIBusId: len {length}")
        data = PCI_BUS_ID.encode()[:length - 1] + b"\0"
        abi.write(buf, data)

    @api
    def cudaDeviceGetByPCIBusId(self, device: int, bus_id: int) -> None:
        _check_ptr(device, "cudaDeviceGetByPCIBusId: device")
        text = abi.read_cstr(bus_id)
        if text.lower() not in (PCI_BUS_ID.lower(), PCI_BUS_ID[5:].lower()):
            raise CudaError(Err.InvalidDevice, f"cudaDeviceGetByPCIBusId: no device at {text!r} "
                            f"(the simulated device is {PCI_BUS_ID})")
        abi.write_i32(device, 0)
