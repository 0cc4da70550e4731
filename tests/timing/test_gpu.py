"""gpgpusim.timing.gpu: the performance-mode GPU's process settings."""

import gc

from gpgpusim.timing import gpu


def test_relax_gc_raises_only_a_lower_young_threshold():
    saved = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)           # CPython's default young threshold
        gpu._relax_gc()
        assert gc.get_threshold() == (1_000_000, 20, 100)
        gc.set_threshold(2_000_000, 30, 200)    # raised by someone else: left alone
        gpu._relax_gc()
        assert gc.get_threshold() == (2_000_000, 30, 200)
        gc.set_threshold(0, 10, 10)             # collection switched off: left off
        gpu._relax_gc()
        assert gc.get_threshold() == (0, 10, 10)
    finally:
        gc.set_threshold(*saved)
