// How long is one step of the strip pipeline's compute warp on this GPU? One warp runs the
// step's chain (a lane reads its north value from shared memory where the lane above wrote it
// a step before, four fused add-and-max, four stores, __syncwarp) STEPS times; the kernel
// reports cycles per step from clock64 and the SM clock from %globaltimer.
#include <cstdio>
#include <cuda_runtime.h>
#define RC 64
#define STEPS 16384

template <int K>
__global__ void chain(int* out, long long* t, int p) {
    __shared__ int rows[4 * 32 + 1][RC];
    __shared__ int subs[32][RC];
    int lane = threadIdx.x;
    for (int i = lane; i < RC; i += 32) for (int r = 0; r < 4 * 32 + 1; ++r) rows[r][i] = r - i;
    for (int i = lane; i < RC; i += 32) for (int r = 0; r < 32; ++r) subs[r][i] = (r * 7 + i) & 0x0f0f0f0f;
    __syncwarp();
    int diag = 0, w0 = 1, w1 = 2, w2 = 3, w3 = 4;
    long long g0, g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    long long c0 = clock64();
    #pragma unroll 4
    for (int k = 0; k < STEPS; ++k) {
        int at = (k - lane) & (RC - 1);
        int above = rows[K * lane][at];
        int sub = subs[lane][at];
        int v0 = max(max(diag + ((sub << 24) >> 24), w0 - p), above - p);
        rows[K * lane + 1][at] = v0;
        if (K == 4) {
            int v1 = max(max(w0 + ((sub << 16) >> 24), w1 - p), v0 - p);
            int v2 = max(max(w1 + ((sub << 8) >> 24), w2 - p), v1 - p);
            int v3 = max(max(w2 + (sub >> 24), w3 - p), v2 - p);
            rows[K * lane + 2][at] = v1;
            rows[K * lane + 3][at] = v2;
            rows[K * lane + 4][at] = v3;
            w1 = v1; w2 = v2; w3 = v3;
        }
        diag = above; w0 = v0;
        __syncwarp();
    }
    long long c1 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    out[lane] = w0 + w1 + w2 + w3;
    if (lane == 0) { t[0] = c1 - c0; t[1] = g1 - g0; }
}

// four rows and two columns a step: lane l at step k computes columns 2 (k - l) and 2 (k - l) + 1
__global__ void chain2(int* out, long long* t, int p) {
    __shared__ int rows[4 * 32 + 1][RC];
    __shared__ int subs[32][RC];
    int lane = threadIdx.x;
    for (int i = lane; i < RC; i += 32) for (int r = 0; r < 4 * 32 + 1; ++r) rows[r][i] = r - i;
    for (int i = lane; i < RC; i += 32) for (int r = 0; r < 32; ++r) subs[r][i] = (r * 7 + i) & 0x0f0f0f0f;
    __syncwarp();
    int diag = 0, w0 = 1, w1 = 2, w2 = 3, w3 = 4;
    long long g0, g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    long long c0 = clock64();
    #pragma unroll 4
    for (int k = 0; k < STEPS / 2; ++k) {
        int at = (2 * (k - lane)) & (RC - 1);
        int a0 = rows[4 * lane][at], a1 = rows[4 * lane][at + 1];
        int s0 = subs[lane][at], s1 = subs[lane][at + 1];
        int v00 = max(max(diag + ((s0 << 24) >> 24), w0 - p), a0 - p);
        int v10 = max(max(w0 + ((s0 << 16) >> 24), w1 - p), v00 - p);
        int v20 = max(max(w1 + ((s0 << 8) >> 24), w2 - p), v10 - p);
        int v30 = max(max(w2 + (s0 >> 24), w3 - p), v20 - p);
        int v01 = max(max(a0 + ((s1 << 24) >> 24), a1 - p), v00 - p);
        int v11 = max(max(v00 + ((s1 << 16) >> 24), v10 - p), v01 - p);
        int v21 = max(max(v10 + ((s1 << 8) >> 24), v20 - p), v11 - p);
        int v31 = max(max(v20 + (s1 >> 24), v30 - p), v21 - p);
        rows[4 * lane + 1][at] = v00; rows[4 * lane + 1][at + 1] = v01;
        rows[4 * lane + 2][at] = v10; rows[4 * lane + 2][at + 1] = v11;
        rows[4 * lane + 3][at] = v20; rows[4 * lane + 3][at + 1] = v21;
        rows[4 * lane + 4][at] = v30; rows[4 * lane + 4][at + 1] = v31;
        diag = a1; w0 = v01; w1 = v11; w2 = v21; w3 = v31;
        __syncwarp();
    }
    long long c1 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    out[lane] = w0 + w1 + w2 + w3;
    if (lane == 0) { t[0] = c1 - c0; t[1] = g1 - g0; }
}

int main() {
    int* out; long long* t; long long h[2];
    cudaMalloc(&out, 32 * 4); cudaMalloc(&t, 16);
    for (int rep = 0; rep < 3; ++rep) {
        chain<4><<<1, 32>>>(out, t, 10); cudaMemcpy(h, t, 16, cudaMemcpyDeviceToHost);
        printf("K=4: %.1f cycles a step, %.1f ns a step, clock %.0f MHz\n", (double)h[0] / STEPS,
               (double)h[1] / STEPS, 1e3 * h[0] / (double)h[1]);
        chain2<<<1, 32>>>(out, t, 10); cudaMemcpy(h, t, 16, cudaMemcpyDeviceToHost);
        printf("K=4, 2 columns: %.1f cycles a column, %.1f ns a column, clock %.0f MHz\n", (double)h[0] / STEPS,
               (double)h[1] / STEPS, 1e3 * h[0] / (double)h[1]);
        chain<1><<<1, 32>>>(out, t, 10); cudaMemcpy(h, t, 16, cudaMemcpyDeviceToHost);
        printf("K=1: %.1f cycles a step, %.1f ns a step, clock %.0f MHz\n", (double)h[0] / STEPS,
               (double)h[1] / STEPS, 1e3 * h[0] / (double)h[1]);
    }
    printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
