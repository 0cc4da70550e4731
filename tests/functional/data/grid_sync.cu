// cooperative_groups grid sync (PTX: nvcc -ptx -O2 -arch=sm_80 grid_sync.cu -o grid_sync.ptx)
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void k(int *data, int *out) {
  cg::grid_group g = cg::this_grid();
  int t = g.thread_rank();
  data[t] = t;
  g.sync();
  out[t] = data[(t + 1) % g.size()];
}
