// The sequence-numbered ring with each slot's sequence word and value in one 64-bit word: a get's
// acquire load brings the value with it, and a put's release store publishes both, so each side
// makes one memory round trip fewer than bench/baselines/queues.cu's `seq_ring`, which this file
// includes so that the two (and `sem_ring`) are timed from one module, side by side.
#include "../../baselines/queues.cu"

__device__ __forceinline__ unsigned long long ld_acquire64(const unsigned long long* p) {
    unsigned long long v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void st_release64(unsigned long long* p, unsigned long long v) {
    asm volatile("st.release.gpu.global.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}

// state: [0] tail ticket, [1] head ticket; slots[CAP]: (value << 32) | sequence word
extern "C" __global__ void packed_ring(unsigned* state, unsigned long long* slots, int cap, int producers,
                                       int per_producer, unsigned* seen, int* err) {
    extern __shared__ int last[];
    unsigned* tail = &state[0];
    unsigned* head = &state[1];
    int consumers = gridDim.x - producers;
    if (threadIdx.x != 0) return;
    if (int(blockIdx.x) < producers) {
        for (int k = 0; k < per_producer; ++k) {
            unsigned t = atomicAdd(tail, 1u), s = t % cap, r = t / cap;
            while (unsigned(ld_acquire64(&slots[s])) != 2 * r) __nanosleep(32);
            st_release64(&slots[s], (unsigned long long)item(blockIdx.x, k) << 32 | (2 * r + 1));
        }
    } else {
        for (int p = 0; p < producers; ++p) last[p] = -1;
        int total = producers * per_producer, c = blockIdx.x - producers;
        int mine = total / consumers + (c < total % consumers);
        for (int k = 0; k < mine; ++k) {
            unsigned t = atomicAdd(head, 1u), s = t % cap, r = t / cap;
            unsigned long long w;
            while (unsigned(w = ld_acquire64(&slots[s])) != 2 * r + 1) __nanosleep(32);
            st_release64(&slots[s], 2 * r + 2);
            take(unsigned(w >> 32), per_producer, seen, last, err);
        }
    }
}
