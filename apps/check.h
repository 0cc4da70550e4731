// Shared helpers for the self-checking apps in apps/.
//
// Every CUDA call in an app goes through CHECK(): a failing call prints the file, line,
// call text and error, prints FAIL and exits 1, so a simulator bug can never pass silently.
// report() prints the single verdict line "<app>: PASS" / "<app>: FAIL" that tests/apps
// looks for, and returns the process exit status.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                    \
  do {                                                                                 \
    cudaError_t check_err_ = (call);                                                   \
    if (check_err_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d: %s failed: %s (%s, code %d)\n", __FILE__, __LINE__,      \
              #call, cudaGetErrorString(check_err_), cudaGetErrorName(check_err_),     \
              (int)check_err_);                                                        \
      printf("FAIL\n");                                                                \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

// After a <<<...>>> launch: configuration errors are reported by cudaGetLastError().
#define CHECK_LAUNCH() CHECK(cudaGetLastError())

// Prints the verdict line and returns the exit status for main().
static inline int report(const char *app, int mismatches) {
  if (mismatches == 0) {
    printf("%s: PASS\n", app);
    return 0;
  }
  printf("%s: FAIL (%d mismatches)\n", app, mismatches);
  return 1;
}
