// Block-mutex hand-over variants (bench/experiments/mutex_handover/README.md).
// Thread 0 of each block takes one global lock `iters` times and increments a plain global word
// inside, then the block meets at __syncthreads() — the loop of `syncc bench gpu` (gpu_mutex) and
// of bench/baselines/locks.cu, which handover.py runs beside these kernels in the same process.
// Built with: nvcc -cubin -arch=sm_90 -O3 -std=c++17 -lineinfo handover.cu
//
// Every kernel: (unsigned* next, unsigned* serving, int* count, int iters, int* err).
// handover.py chooses where `serving` lies: the next word after `next` (same 128-byte line) or
// 128 bytes on (a line of its own). Every poll loop has a watchdog (except the *_nowd kernels):
// after 2^31 cycles (~1 s) of waiting it sets *err and leaves, so a broken variant gives a wrong
// count, never a hang. handover.py runs syncc's own PTX and libcu++ under a 20 s host deadline.
#include <cuda/semaphore>

#define DEV __device__ __forceinline__
constexpr long long WATCHDOG = 1ll << 31;

// ---- memory operations, each one PTX instruction -------------------------------------------
DEV unsigned ld_relaxed(const unsigned* p) {
    unsigned v; asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v;
}
DEV unsigned ld_acquire(const unsigned* p) {
    unsigned v; asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v;
}
DEV unsigned long long ld_acquire64(const unsigned long long* p) {
    unsigned long long v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v;
}
DEV unsigned long long ld_relaxed64(const unsigned long long* p) {
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v;
}
DEV void st_release64(unsigned long long* p, unsigned long long v) {
    asm volatile("st.release.gpu.global.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
DEV void st_relaxed64(unsigned long long* p, unsigned long long v) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
DEV void red_release_add(unsigned* p, unsigned v) {
    asm volatile("red.release.gpu.global.add.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
DEV void st_release(unsigned* p, unsigned v) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
DEV void fence_acq_rel() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
DEV void fence_acquire() { asm volatile("fence.acquire.gpu;" ::: "memory"); }   // PTX 8.6+
DEV void fence_release() { asm volatile("fence.release.gpu;" ::: "memory"); }   // PTX 8.6+
DEV void st_relaxed(unsigned* p, unsigned v) {
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
DEV void spin_cycles(long long n) { long long t = clock64(); while (clock64() - t < n) {} }
DEV bool expired(long long t0, int* err) {
    if (clock64() - t0 < WATCHDOG) return false;
    atomicExch(err, 1);
    return true;
}

// ---- the ticket lock, one knob per technique --------------------------------------------
enum Acq { POLL_RELAXED_THEN_THREADFENCE, POLL_ACQUIRE, POLL_RELAXED_THEN_ACQREL_FENCE,
           POLL_RELAXED_THEN_ACQUIRE_FENCE };
enum Rel { THREADFENCE_ATOMICADD, RED_RELEASE, ST_RELEASE, RELEASE_FENCE_ST_RELAXED };

// K: a waiter sleeps K ns per block ahead of it between polls (0: no sleep).
// HEAD: the next in line (one ahead: the holder) polls without sleeping.
// PIPE: the next in line keeps 4 relaxed polls in flight, PIPE cycles apart (0: off), then
// fence.acquire.gpu. WD: with the watchdog (false: the loop holds only the poll, the test and
// the sleep; ptxas then lays it out differently from syncc's loop, see README).
template <Acq A, Rel R, int K = 0, bool HEAD = false, int PIPE = 0, bool WD = true>
struct Ticket {
    unsigned* next; unsigned* serving; int* err;
    unsigned me = 0;
    DEV bool hot_poll() const {             // 4 loads in flight; true when one saw our turn
        unsigned a = ld_relaxed(serving); spin_cycles(PIPE);
        unsigned b = ld_relaxed(serving); spin_cycles(PIPE);
        unsigned c = ld_relaxed(serving); spin_cycles(PIPE);
        long long t0 = clock64();
        for (;;) {
            unsigned d = ld_relaxed(serving); if (a == me) return true; spin_cycles(PIPE);
            a = ld_relaxed(serving); if (b == me) return true; spin_cycles(PIPE);
            b = ld_relaxed(serving); if (c == me) return true; spin_cycles(PIPE);
            c = ld_relaxed(serving); if (d == me) return true; spin_cycles(PIPE);
            if (expired(t0, err)) return false;
        }
    }
    DEV void lock() {
        me = atomicAdd(next, 1u);
        long long t0 = clock64();
        for (;;) {
            unsigned s = A == POLL_ACQUIRE ? ld_acquire(serving) : ld_relaxed(serving);
            if (s == me) break;
            unsigned ahead = me - s;
            if (PIPE && ahead == 1) { hot_poll(); fence_acquire(); return; }   // relaxed polls
            if (K && !(HEAD && ahead == 1)) __nanosleep(K * (HEAD ? ahead - 1 : ahead));
            if (WD && expired(t0, err)) return;
        }
        if (A == POLL_RELAXED_THEN_THREADFENCE) __threadfence();
        if (A == POLL_RELAXED_THEN_ACQREL_FENCE) fence_acq_rel();
        if (A == POLL_RELAXED_THEN_ACQUIRE_FENCE) fence_acquire();
    }
    DEV void unlock() const {
        if (R == THREADFENCE_ATOMICADD) { __threadfence(); atomicAdd(serving, 1u); }
        if (R == RED_RELEASE) red_release_add(serving, 1u);
        if (R == ST_RELEASE) st_release(serving, me + 1);    // only the holder writes `serving`
        if (R == RELEASE_FENCE_ST_RELAXED) { fence_release(); st_relaxed(serving, me + 1); }
    }
};

// libcu++ cuda::binary_semaphore, as locks.cu uses it (state placement-new'd by init_semaphore).
using binary_sem = cuda::binary_semaphore<cuda::thread_scope_device>;
struct Semaphore {
    unsigned* next; unsigned* serving; int* err;
    DEV void lock() { reinterpret_cast<binary_sem*>(next)->acquire(); }
    DEV void unlock() const { reinterpret_cast<binary_sem*>(next)->release(); }
};
extern "C" __global__ void init_semaphore(unsigned* s) { new (s) binary_sem(1); }

// ---- the block-mutex loop: locks.cu's shape, and syncc's shape ------------------------------
// The count's read-modify-write: volatile (as locks.cu) or plain, weak accesses (as syncc emits).
template <bool WEAK>
DEV void bump(int* count) {
    if (WEAK) *count = *count + 1;
    else *(volatile int*)count = *(volatile int*)count + 1;
}
template <class Lock, bool WEAK = false>
DEV void block_mutex(Lock lock, int* count, int iters) {
    for (int i = 0; i < iters; ++i) {
        if (threadIdx.x == 0) {
            lock.lock();
            bump<WEAK>(count);
            lock.unlock();
        }
        __syncthreads();
    }
}
// What syncc emits for `critical m { if tid == 0 { ... } }` on an @block mutex: the whole block
// is inside, so a barrier after the acquire and one before the release. REGBAR: the barrier as
// syncc writes it, `barrier.sync %r` (not .aligned); else __syncthreads() (`bar.sync 0`).
template <bool REGBAR>
DEV void block_barrier() {
    if (REGBAR) asm volatile("barrier.sync %0;" :: "r"(0) : "memory");
    else __syncthreads();
}
template <class Lock, bool WEAK = false, bool REGBAR = false>
DEV void syncc_shape(Lock lock, int* count, int iters) {
    for (int i = 0; i < iters; ++i) {
        if (threadIdx.x == 0) lock.lock();
        block_barrier<REGBAR>();
        if (threadIdx.x == 0) bump<WEAK>(count);
        block_barrier<REGBAR>();
        if (threadIdx.x == 0) lock.unlock();
    }
}

#define KERNEL(name, shape, ...)                                                                  \
    extern "C" __global__ void name(unsigned* next, unsigned* serving, int* count, int iters,     \
                                    int* err) {                                                   \
        shape(__VA_ARGS__{next, serving, err}, count, iters);                                     \
    }
#define KERNEL_WEAK(name, shape, ...)                                                             \
    extern "C" __global__ void name(unsigned* next, unsigned* serving, int* count, int iters,     \
                                    int* err) {                                                   \
        shape<__VA_ARGS__, true>({next, serving, err}, count, iters);                             \
    }
#define KERNEL_WEAK_REGBAR(name, shape, ...)                                                      \
    extern "C" __global__ void name(unsigned* next, unsigned* serving, int* count, int iters,     \
                                    int* err) {                                                   \
        shape<__VA_ARGS__, true, true>({next, serving, err}, count, iters);                       \
    }
#define T Ticket
// (a) locks.cu's ticket (with the watchdog); locks.cu's own block_ticket also runs, unchanged.
KERNEL(ticket_hw,        block_mutex, T<POLL_RELAXED_THEN_THREADFENCE, THREADFENCE_ATOMICADD>)
// (b) libcu++ binary_semaphore
KERNEL(semaphore,        block_mutex, Semaphore)
// (c) release carried by the operation
KERNEL(ticket_red_rel,   block_mutex, T<POLL_RELAXED_THEN_THREADFENCE, RED_RELEASE>)
KERNEL(ticket_st_rel,    block_mutex, T<POLL_RELAXED_THEN_THREADFENCE, ST_RELEASE>)
// (d) acquire carried by the poll, or a lighter fence after a relaxed poll
KERNEL(ticket_ld_acq,    block_mutex, T<POLL_ACQUIRE, THREADFENCE_ATOMICADD>)
KERNEL(ticket_acqrel_fence, block_mutex, T<POLL_RELAXED_THEN_ACQREL_FENCE, THREADFENCE_ATOMICADD>)
// (c)+(d): syncc's ticket primitives in locks.cu's shape; then in syncc's shape
KERNEL(ticket_acq_red,   block_mutex, T<POLL_ACQUIRE, RED_RELEASE>)
KERNEL(ticket_acq_st,    block_mutex, T<POLL_ACQUIRE, ST_RELEASE>)
KERNEL(shape_acq_red,    syncc_shape, T<POLL_ACQUIRE, RED_RELEASE>)
KERNEL(shape_acq_red_k100, syncc_shape, T<POLL_ACQUIRE, RED_RELEASE, 100>)
KERNEL(shape_hw,         syncc_shape, T<POLL_RELAXED_THEN_THREADFENCE, THREADFENCE_ATOMICADD>)
// (e) proportional backoff: K ns per block ahead; HEAD: the next in line does not sleep
KERNEL(ticket_k25,       block_mutex, T<POLL_ACQUIRE, RED_RELEASE, 25>)
KERNEL(ticket_k50,       block_mutex, T<POLL_ACQUIRE, RED_RELEASE, 50>)
KERNEL(ticket_k100,      block_mutex, T<POLL_ACQUIRE, RED_RELEASE, 100>)
KERNEL(ticket_k200,      block_mutex, T<POLL_ACQUIRE, RED_RELEASE, 200>)
KERNEL(ticket_k100_head, block_mutex, T<POLL_ACQUIRE, RED_RELEASE, 100, true>)
KERNEL(ticket_k200_head, block_mutex, T<POLL_ACQUIRE, RED_RELEASE, 200, true>)
KERNEL(ticket_k400_head, block_mutex, T<POLL_ACQUIRE, RED_RELEASE, 400, true>)
KERNEL(ticket_hw_k200_head, block_mutex, T<POLL_RELAXED_THEN_THREADFENCE, THREADFENCE_ATOMICADD, 200, true>)
// (h) the next in line keeps several polls in flight
KERNEL(ticket_k200_pipe100, block_mutex, T<POLL_ACQUIRE, RED_RELEASE, 200, true, 100>)
KERNEL(ticket_k200_pipe200, block_mutex, T<POLL_ACQUIRE, RED_RELEASE, 200, true, 200>)
// (h) Hopper's one-sided fences (PTX 8.6): fence.acquire.gpu after a relaxed poll, and
// fence.release.gpu before a relaxed store
KERNEL(ticket_facq_st,   block_mutex, T<POLL_RELAXED_THEN_ACQUIRE_FENCE, ST_RELEASE>)
KERNEL(ticket_acq_frel,  block_mutex, T<POLL_ACQUIRE, RELEASE_FENCE_ST_RELAXED>)
// (h) the count read and written with weak accesses, as syncc emits it
KERNEL_WEAK(ticket_acq_st_weak, block_mutex, T<POLL_ACQUIRE, ST_RELEASE>)
KERNEL_WEAK(shape_acq_red_weak, syncc_shape, T<POLL_ACQUIRE, RED_RELEASE>)
// the best primitives together: in locks.cu's shape, and in syncc's shape (volatile / weak count)
KERNEL(ticket_acq_st_k200_head, block_mutex, T<POLL_ACQUIRE, ST_RELEASE, 200, true>)
KERNEL(shape_acq_st_k200_head,  syncc_shape, T<POLL_ACQUIRE, ST_RELEASE, 200, true>)
KERNEL_WEAK(shape_acq_st_k200_head_weak, syncc_shape, T<POLL_ACQUIRE, ST_RELEASE, 200, true>)
KERNEL(ticket_facq_st_k200_head, block_mutex, T<POLL_RELAXED_THEN_ACQUIRE_FENCE, ST_RELEASE, 200, true>)
// syncc's shape and weak count, syncc's default, then one change at a time
KERNEL_WEAK(shape_acq_red_k100_weak,       syncc_shape, T<POLL_ACQUIRE, RED_RELEASE, 100>)
KERNEL_WEAK(shape_acq_red_k100_head_weak,  syncc_shape, T<POLL_ACQUIRE, RED_RELEASE, 100, true>)
KERNEL_WEAK(shape_facq_red_k100_head_weak, syncc_shape, T<POLL_RELAXED_THEN_ACQUIRE_FENCE, RED_RELEASE, 100, true>)
KERNEL_WEAK(shape_facq_st_k100_head_weak,  syncc_shape, T<POLL_RELAXED_THEN_ACQUIRE_FENCE, ST_RELEASE, 100, true>)
KERNEL_WEAK(shape_facq_st_k200_head_weak,  syncc_shape, T<POLL_RELAXED_THEN_ACQUIRE_FENCE, ST_RELEASE, 200, true>)
KERNEL_WEAK(shape_facq_st_weak,            syncc_shape, T<POLL_RELAXED_THEN_ACQUIRE_FENCE, ST_RELEASE>)
// no watchdog: syncc's ticket and default as hand-written code, and the proposal
KERNEL_WEAK(shape_acq_red_weak_nowd,       syncc_shape, T<POLL_ACQUIRE, RED_RELEASE, 0, false, 0, false>)
KERNEL_WEAK(shape_acq_red_k100_weak_nowd,  syncc_shape, T<POLL_ACQUIRE, RED_RELEASE, 100, false, 0, false>)
KERNEL_WEAK(shape_facq_st_k200_head_weak_nowd, syncc_shape, T<POLL_RELAXED_THEN_ACQUIRE_FENCE, ST_RELEASE, 200, true, 0, false>)
KERNEL(ticket_facq_st_k200_head_nowd, block_mutex, T<POLL_RELAXED_THEN_ACQUIRE_FENCE, ST_RELEASE, 200, true, 0, false>)
// the same three with syncc's form of the barrier
KERNEL_WEAK_REGBAR(shape_acq_red_weak_nowd_regbar,      syncc_shape, T<POLL_ACQUIRE, RED_RELEASE, 0, false, 0, false>)
KERNEL_WEAK_REGBAR(shape_acq_red_k100_weak_nowd_regbar, syncc_shape, T<POLL_ACQUIRE, RED_RELEASE, 100, false, 0, false>)
KERNEL_WEAK_REGBAR(shape_facq_st_k200_head_weak_nowd_regbar, syncc_shape, T<POLL_RELAXED_THEN_ACQUIRE_FENCE, ST_RELEASE, 200, true, 0, false>)

// ---- (g) the count carried in the lock word: {serving (low 32), count (high 32)} ----------
// The next holder sees its turn and the count in one 64-bit load, and hands both over with one
// 64-bit store. `serving` must be 8-byte aligned. REL: st.release (else st.relaxed, enough only
// because the count is the one datum the lock guards here: the floor of a hand-over).
template <bool REL, int K = 0, bool FENCE_RELEASE = false, bool FENCE_ACQUIRE = false>
DEV void carry(unsigned* next, unsigned* serving, int* count, int iters, int* err) {
    auto* word = reinterpret_cast<unsigned long long*>(serving);
    for (int i = 0; i < iters; ++i) {
        if (threadIdx.x == 0) {
            unsigned me = atomicAdd(next, 1u);
            unsigned long long w;
            long long t0 = clock64();
            for (;;) {
                w = REL && !FENCE_ACQUIRE ? ld_acquire64(word) : ld_relaxed64(word);
                unsigned ahead = me - (unsigned)w;
                if (ahead == 0) break;
                if (K && ahead > 1) __nanosleep(K * (ahead - 1));
                if (expired(t0, err)) break;
            }
            if (FENCE_ACQUIRE) fence_acquire();
            unsigned long long c = (w >> 32) + 1;
            if (FENCE_RELEASE) { fence_release(); st_relaxed64(word, c << 32 | (me + 1)); }
            else if (REL) st_release64(word, c << 32 | (me + 1));
            else st_relaxed64(word, c << 32 | (me + 1));
        }
        __syncthreads();
    }
}
extern "C" __global__ void carry_rel(unsigned* n, unsigned* s, int* c, int it, int* e) { carry<true>(n, s, c, it, e); }
extern "C" __global__ void carry_rlx(unsigned* n, unsigned* s, int* c, int it, int* e) { carry<false>(n, s, c, it, e); }
extern "C" __global__ void carry_frel(unsigned* n, unsigned* s, int* c, int it, int* e) { carry<true, 0, true>(n, s, c, it, e); }
extern "C" __global__ void carry_facq(unsigned* n, unsigned* s, int* c, int it, int* e) { carry<true, 0, false, true>(n, s, c, it, e); }
extern "C" __global__ void carry_facq_k200_head(unsigned* n, unsigned* s, int* c, int it, int* e) { carry<true, 200, false, true>(n, s, c, it, e); }
extern "C" __global__ void carry_rel_k200_head(unsigned* n, unsigned* s, int* c, int it, int* e) { carry<true, 200>(n, s, c, it, e); }

// ---- latencies, one thread, in cycles per operation (clock64) --------------------------------
// out: [0] dependent ld.relaxed.gpu, [1] dependent atomicAdd, [2] st + fence.sc.gpu (__threadfence),
// [3] st + fence.acq_rel.gpu, [4] fence.sc.gpu alone, [5] red.release.gpu alone, [6] ld.acquire.gpu,
// [7] st + fence.release.gpu, [8] fence.acquire.gpu alone
extern "C" __global__ void latency(unsigned* word, long long* out) {
    const int N = 256;
    unsigned v = 0;
    long long t;
    t = clock64(); for (int i = 0; i < N; ++i) v = ld_relaxed(word + v); out[0] = (clock64() - t) / N;
    t = clock64(); for (int i = 0; i < N; ++i) v = atomicAdd(word + 32 + (v & 1) * 0 + (v >> 31), 0u); out[1] = (clock64() - t) / N;
    t = clock64(); for (int i = 0; i < N; ++i) { ((volatile unsigned*)word)[64] = i; __threadfence(); } out[2] = (clock64() - t) / N;
    t = clock64(); for (int i = 0; i < N; ++i) { ((volatile unsigned*)word)[64] = i; fence_acq_rel(); } out[3] = (clock64() - t) / N;
    t = clock64(); for (int i = 0; i < N; ++i) __threadfence(); out[4] = (clock64() - t) / N;
    t = clock64(); for (int i = 0; i < N; ++i) red_release_add(word + 96, 1u); out[5] = (clock64() - t) / N;
    t = clock64(); for (int i = 0; i < N; ++i) v = ld_acquire(word + (v & 0xffff0000u)); out[6] = (clock64() - t) / N;
    t = clock64(); for (int i = 0; i < N; ++i) { ((volatile unsigned*)word)[64] = i; fence_release(); } out[7] = (clock64() - t) / N;
    t = clock64(); for (int i = 0; i < N; ++i) fence_acquire(); out[8] = (clock64() - t) / N;
    if (v == 12345) out[9] = 1;
}
