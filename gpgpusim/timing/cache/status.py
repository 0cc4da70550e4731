"""What a cache access or probe returns (GPGPU-Sim ``cache_request_status``) and the events it
reports (``cache_event_type``)."""

from __future__ import annotations

from typing import Final

HIT: Final = "HIT"
HIT_RESERVED: Final = "HIT_RESERVED"
MISS: Final = "MISS"
RESERVATION_FAIL: Final = "RESERVATION_FAIL"
SECTOR_MISS: Final = "SECTOR_MISS"
MSHR_HIT: Final = "MSHR_HIT"

# cache events (``cache_event_type``)
WRITE_BACK_REQUEST_SENT: Final = "WRITE_BACK_REQUEST_SENT"
READ_REQUEST_SENT: Final = "READ_REQUEST_SENT"
WRITE_REQUEST_SENT: Final = "WRITE_REQUEST_SENT"
WRITE_ALLOCATE_SENT: Final = "WRITE_ALLOCATE_SENT"
