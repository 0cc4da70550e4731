"""The training workload of the profile-guided native build (:func:`gpgpusim.native.build` runs
``python -m gpgpusim.pgo.train`` under its instrumented build).  A package of its own: it drives
the performance model, which sits above the native loader it serves."""
