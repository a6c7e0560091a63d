// Hand-written bounded queues: the baselines of issue 19's `gpu_queue` section (docs/design/queues.md),
// built with nvcc -cubin -arch=sm_90 -std=c++17. Each checks what it delivers: `seen[item]` counts
// how often each item was taken (the host wants exactly 1), and `err` counts a producer's items
// taken out of order by one consumer. State is zeroed by the host before each launch.
//
//   seq_ring     between blocks: thread 0 of each block is a producer or a consumer of one global
//                ring of CAP slots, each with a sequence word (2r: empty for round r, 2r + 1: full)
//   sem_ring     the same shape from libcu++ semaphores: `space` (CAP) and `items` (0) counting
//                semaphores and a binary semaphore each for the head and the tail
//   mbar_ring    inside a block: warp 0 produces 32 items a step into a shared ring of CAP stages,
//                warp 1 consumes them; a `full` and an `empty` mbarrier per stage, waited on by phase
#include <cuda/semaphore>
#include <cstdint>
#include <new>

using binary_sem = cuda::binary_semaphore<cuda::thread_scope_device>;
using counting_sem = cuda::counting_semaphore<cuda::thread_scope_device, 1 << 20>;

__device__ __forceinline__ unsigned ld_acquire(const unsigned* p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void st_release(unsigned* p, unsigned v) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

// An item is (producer << 16) | k, its k-th (k < 65536); `seen` has one counter per item, a
// producer's `per_producer` of them side by side. A consumer checks that each producer's items
// reach it in order (FIFO per producer).
__device__ __forceinline__ unsigned item(int producer, int k) { return (unsigned(producer) << 16) | unsigned(k); }

__device__ void take(unsigned v, int per_producer, unsigned* seen, int* last, int* err) {
    int p = v >> 16, k = v & 0xFFFF;
    atomicAdd(&seen[size_t(p) * per_producer + k], 1u);
    if (k <= last[p]) atomicAdd(err, 1);
    last[p] = k;
}

// ---- between blocks: the sequence-numbered ring ---------------------------------------------
// state: [0] tail ticket, [1] head ticket, [32 ..] seq[CAP] (own lines from the tickets)
extern "C" __global__ void seq_ring(unsigned* state, unsigned* data, int cap, int producers, int per_producer,
                                    unsigned* seen, int* err) {
    extern __shared__ int last[];                                   // per producer, this consumer's last k
    unsigned* tail = &state[0];
    unsigned* head = &state[1];
    unsigned* seq = &state[32];
    int consumers = gridDim.x - producers;
    if (threadIdx.x != 0) return;
    if (int(blockIdx.x) < producers) {
        for (int k = 0; k < per_producer; ++k) {
            unsigned t = atomicAdd(tail, 1u), s = t % cap, r = t / cap;
            while (ld_acquire(&seq[s]) != 2 * r) __nanosleep(32);
            data[s] = item(blockIdx.x, k);
            st_release(&seq[s], 2 * r + 1);
        }
    } else {
        for (int p = 0; p < producers; ++p) last[p] = -1;
        int total = producers * per_producer, c = blockIdx.x - producers;
        int mine = total / consumers + (c < total % consumers);
        for (int k = 0; k < mine; ++k) {
            unsigned t = atomicAdd(head, 1u), s = t % cap, r = t / cap;
            while (ld_acquire(&seq[s]) != 2 * r + 1) __nanosleep(32);
            unsigned v = data[s];
            st_release(&seq[s], 2 * r + 2);
            take(v, per_producer, seen, last, err);
        }
    }
}

// ---- between blocks: a ring from libcu++ semaphores -----------------------------------------
// state (as 32-bit words): [0] space, [8] items, [16] tail lock, [24] head lock, [32] tail, [40] head
extern "C" __global__ void init_sem_ring(unsigned* state, int cap) {
    new (&state[0]) counting_sem(cap);
    new (&state[8]) counting_sem(0);
    new (&state[16]) binary_sem(1);
    new (&state[24]) binary_sem(1);
}

extern "C" __global__ void sem_ring(unsigned* state, unsigned* data, int cap, int producers, int per_producer,
                                    unsigned* seen, int* err) {
    extern __shared__ int last[];
    auto* space = reinterpret_cast<counting_sem*>(&state[0]);
    auto* items = reinterpret_cast<counting_sem*>(&state[8]);
    auto* tail_lock = reinterpret_cast<binary_sem*>(&state[16]);
    auto* head_lock = reinterpret_cast<binary_sem*>(&state[24]);
    volatile unsigned* tail = &state[32];
    volatile unsigned* head = &state[40];
    int consumers = gridDim.x - producers;
    if (threadIdx.x != 0) return;
    if (int(blockIdx.x) < producers) {
        for (int k = 0; k < per_producer; ++k) {
            space->acquire();
            tail_lock->acquire();
            unsigned s = *tail % cap;
            *tail = *tail + 1;
            reinterpret_cast<volatile unsigned*>(data)[s] = item(blockIdx.x, k);
            tail_lock->release();
            items->release();
        }
    } else {
        for (int p = 0; p < producers; ++p) last[p] = -1;
        int total = producers * per_producer, c = blockIdx.x - producers;
        int mine = total / consumers + (c < total % consumers);
        for (int k = 0; k < mine; ++k) {
            items->acquire();
            head_lock->acquire();
            unsigned s = *head % cap;
            *head = *head + 1;
            unsigned v = reinterpret_cast<volatile unsigned*>(data)[s];
            head_lock->release();
            space->release();
            take(v, per_producer, seen, last, err);
        }
    }
}

// ---- inside a block: warp 0 → warp 1 through CAP stages of 32 items, with mbarriers ---------
__device__ __forceinline__ void mbar_init(uint64_t* bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(unsigned(__cvta_generic_to_shared(bar))), "r"(count)
                 : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
    asm volatile("{ .reg .b64 st; mbarrier.arrive.shared::cta.b64 st, [%0]; }"
                 :: "r"(unsigned(__cvta_generic_to_shared(bar))) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, unsigned parity) {
    unsigned done;
    do {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(unsigned(__cvta_generic_to_shared(bar))), "r"(parity) : "memory");
    } while (!done);
}

constexpr int MAX_STAGES = 16;

// Each block streams `steps` × 32 items from its warp 0 to its warp 1 (block of 64 threads).
extern "C" __global__ void mbar_ring(int stages, int steps, unsigned* seen, int* err) {
    __shared__ uint64_t full[MAX_STAGES], empty[MAX_STAGES];
    __shared__ unsigned ring[MAX_STAGES][32];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (threadIdx.x < stages) {
        mbar_init(&full[threadIdx.x], 32);
        mbar_init(&empty[threadIdx.x], 32);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    __syncthreads();
    int producer = blockIdx.x * 32 + lane;          // each lane of warp 0 is a producer
    if (warp == 0) {
        for (int i = 0; i < steps; ++i) {
            int s = i % stages;
            unsigned round = i / stages;
            if (round > 0) mbar_wait(&empty[s], (round - 1) & 1);    // the consumer freed it last round
            ring[s][lane] = (unsigned(producer) << 16) | unsigned(i);
            mbar_arrive(&full[s]);
        }
    } else if (warp == 1) {
        int last = -1, bad = 0;
        for (int i = 0; i < steps; ++i) {
            int s = i % stages;
            mbar_wait(&full[s], (i / stages) & 1);
            unsigned v = ring[s][lane];
            mbar_arrive(&empty[s]);
            int k = v & 0xFFFF;
            bad += (int(v >> 16) != producer) | (k <= last);
            last = k;
            atomicAdd(&seen[size_t(producer) * steps + k], 1u);
        }
        if (bad) atomicAdd(err, bad);
    }
}
