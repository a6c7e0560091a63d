// Cooperative groups' grid.sync() as the grid-barrier baseline for `syncc bench gpu`, launched
// cooperatively. With `check` set, each round thread 0 of each block writes the round into its
// slot, and after the barrier reads its neighbour's: a slot still behind means the barrier let a
// block through early, counted in errors[0] (the bench requires zero). Timed runs clear it.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void grid_sync(int* slots, int* errors, int rounds, int check) {
    cg::grid_group grid = cg::this_grid();
    volatile int* slot = slots;
    int next = (blockIdx.x + 1) % gridDim.x;
    for (int r = 1; r <= rounds; ++r) {
        if (check && threadIdx.x == 0) slot[blockIdx.x] = r;
        grid.sync();
        if (check && threadIdx.x == 0 && slot[next] < r) atomicAdd(errors, 1);
    }
}
