"""In-process fatbin/ELF extraction (no external cuobjdump)."""
