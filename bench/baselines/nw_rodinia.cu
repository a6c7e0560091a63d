// Needleman–Wunsch in the style of Rodinia's `needle`: the score matrix in 16 × 16 tiles, one
// kernel launch per diagonal of tiles, 16 threads per tile walking the tile's anti-diagonals in
// shared memory. The baseline of `syncc bench gpu` (section gpu_nw).
//
// score: (n+1) × (n+1), row 0 and column 0 hold the gap penalties; ref: n × n, the
// substitution score of cell (i, j) is ref[i-1][j-1]. n is a multiple of 16.
#define T 16

extern "C" __global__ void nw_tile_diagonal(const int* ref, int* score, int n, int penalty, int d) {
    __shared__ int s[T + 1][T + 1];
    __shared__ int r[T][T];
    const int tiles = n / T, w = n + 1, tx = threadIdx.x;
    const int ti = max(0, d - (tiles - 1)) + blockIdx.x, tj = d - ti;
    const int row0 = ti * T, col0 = tj * T;        // the tile's cells are (row0+1.., col0+1..)
    if (tx == 0) s[0][0] = score[row0 * w + col0];
    s[0][tx + 1] = score[row0 * w + col0 + 1 + tx];
    s[tx + 1][0] = score[(row0 + 1 + tx) * w + col0];
    for (int k = 0; k < T; ++k) r[k][tx] = ref[(row0 + k) * n + col0 + tx];
    __syncthreads();
    for (int m = 0; m < 2 * T - 1; ++m) {          // anti-diagonal m of the tile: i + j == m
        int i = tx, j = m - tx;
        if (j >= 0 && j < T)
            s[i + 1][j + 1] = max(s[i][j] + r[i][j], max(s[i][j + 1] - penalty, s[i + 1][j] - penalty));
        __syncthreads();
    }
    for (int k = 0; k < T; ++k) score[(row0 + 1 + k) * w + col0 + 1 + tx] = s[k + 1][tx + 1];
}
