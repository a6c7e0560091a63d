// The wavefront kernel of examples/wavefront.sync written by hand in CUDA C++, as the
// baseline for compile times (bench/ptx.py): a ready flag per slot in shared memory,
// stored with release and polled with acquire, the `when` as a polling loop with
// __syncwarp, the borders put first.
#define N 31

__device__ __forceinline__ void st_release(int* p, int v) {
    asm volatile("st.release.cta.shared.u32 [%0], %1;" :: "l"(__cvta_generic_to_shared(p)), "r"(v) : "memory");
}
__device__ __forceinline__ int ld_acquire(const int* p) {
    int v;
    asm volatile("ld.acquire.cta.shared.u32 %0, [%1];" : "=r"(v) : "l"(__cvta_generic_to_shared(p)) : "memory");
    return v;
}

extern "C" __global__ void nw(const int* refm, int* out, int penalty) {
    __shared__ int score[(N + 1) * (N + 1)];
    __shared__ int ready[(N + 1) * (N + 1)];
    int i = threadIdx.y, j = threadIdx.x, me = i * (N + 1) + j;
    ready[me] = 0;
    __syncthreads();
    if (i == 0 || j == 0) {
        score[me] = -penalty * (i + j);
        st_release(&ready[me], 1);
    }
    if (i != 0 && j != 0) {
        bool got_north = false, got_west = false, done = false;
        int north = 0, west = 0;
        while (!done) {
            unsigned lanes = __activemask();
            if (!got_north && ld_acquire(&ready[me - (N + 1)])) { north = score[me - (N + 1)]; got_north = true; }
            if (!got_west && ld_acquire(&ready[me - 1])) { west = score[me - 1]; got_west = true; }
            if (got_north && got_west) {
                int diag = score[me - (N + 1) - 1];
                int v = max(max(diag + refm[(i - 1) * N + (j - 1)], north - penalty), west - penalty);
                score[me] = v;
                st_release(&ready[me], 1);
                done = true;
            }
            __syncwarp(lanes);
        }
    }
    out[me] = score[me];
}
