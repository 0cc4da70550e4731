"""gpgpusim: GPGPU-Sim rebuilt in Python.

Runs unmodified CUDA binaries (``nvcc -cudart shared``) on a simulated GPU through a
``libcudart.so.13`` built with cffi's embedding API (see ``shim/``).
"""

__version__ = "0.1.0"
