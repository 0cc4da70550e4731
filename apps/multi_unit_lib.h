// multi_unit: interface of the second compilation unit (multi_unit_lib.cu).
#pragma once

// Launches the library's kernel: out[i] = in[i] * in[i] - k. Returns the launch error.
cudaError_t launchSquareMinus(const int *in, int *out, int n, int k);

// Runs the library's own self-contained check of its second kernel; returns mismatches.
int libSelfCheck();
