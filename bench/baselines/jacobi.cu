// The rounds of bench/programs/jacobi.sync written by hand with cooperative groups, launched
// cooperatively, as the baselines of `syncc bench gpu` (gpu_jacobi): each round computes the block
// tile's two edge cells, then its inner cells; `jacobi_grid_sync` then calls grid.sync(), and
// `jacobi_grid_split` calls grid.barrier_arrive() between the two and grid.barrier_wait() after.
// PER and ROUNDS come from the bench (-D), as the syncc program's constants do.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#ifndef PER
#define PER 16
#endif
#ifndef ROUNDS
#define ROUNDS 200
#endif
#define THREADS 128
#define TILE (THREADS * PER)
#define P 1009

__device__ __forceinline__ int relax(int left, int here, int right) { return (left + 2 * here + right) % P; }

// u holds two copies of the ring, `cells` apart; round r reads copy r % 2 and writes the other.
// The cells of one round in the order of jacobi.sync: the tile's two edge cells (the only ones
// another block reads), then the inner cells; `between` runs after the edges.
template <typename Between, typename After>
__device__ __forceinline__ void rounds(int* u, int cells, Between between, After after) {
    int len = gridDim.x * TILE, lo = blockIdx.x * TILE, hi = lo + TILE - 1;
    for (int r = 0; r < ROUNDS; ++r) {
        const int* src = u + (r % 2) * cells;
        int* dst = u + (1 - r % 2) * cells;
        if (threadIdx.x == 0) dst[lo] = relax(src[(lo + len - 1) % len], src[lo], src[lo + 1]);
        if (threadIdx.x == THREADS - 1) dst[hi] = relax(src[hi - 1], src[hi], src[(hi + 1) % len]);
        auto token = between();
        for (int k = 0; k < PER; ++k) {
            int i = lo + k * THREADS + threadIdx.x;
            if (i != lo && i != hi) dst[i] = relax(src[i - 1], src[i], src[i + 1]);
        }
        after(std::move(token));
    }
}

extern "C" __global__ void __launch_bounds__(THREADS) jacobi_grid_sync(int* u, int cells) {
    cg::grid_group grid = cg::this_grid();
    rounds(u, cells, [] { return 0; }, [&](int) { grid.sync(); });
}

extern "C" __global__ void __launch_bounds__(THREADS) jacobi_grid_split(int* u, int cells) {
    cg::grid_group grid = cg::this_grid();
    rounds(u, cells, [&] { return grid.barrier_arrive(); },
           [&](cg::grid_group::arrival_token&& token) { grid.barrier_wait(std::move(token)); });
}
