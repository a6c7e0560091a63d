// Hand-written lock baselines for `syncc bench gpu` (syncc/bench/gpu_*.py), built with
// nvcc -cubin -arch=sm_XX -std=c++17. Each kernel loops `iters` times; the state arrays are
// zeroed by the host before each launch. What is counted inside a lock is a plain read-modify-
// write, so a broken lock shows up as a wrong count (the bench checks every count).
#include <cuda/semaphore>

using binary_sem = cuda::binary_semaphore<cuda::thread_scope_device>;
using counting_sem = cuda::counting_semaphore<cuda::thread_scope_device, 1024>;

// A polling load the compiler must repeat (a plain load in an empty loop may be hoisted, and the
// loop then assumed to end: C++ forward progress); relaxed, at device scope, bypassing L1.
__device__ __forceinline__ int poll(const int* p) {
    int v;
    asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

// ---- locks as functions (acquire / release), one word of state each ----------------------
struct Tas {                       // test-and-set: an atomic exchange per attempt
    int* word;
    __device__ void lock() const { while (atomicExch(word, 1) != 0) {} __threadfence(); }
    __device__ void unlock() const { __threadfence(); atomicExch(word, 0); }
};
struct Ttas {                      // test and test-and-set: poll with plain loads first
    int* word;
    __device__ void lock() const {
        for (;;) {
            while (poll(word) != 0) {}
            if (atomicExch(word, 1) == 0) break;
        }
        __threadfence();
    }
    __device__ void unlock() const { __threadfence(); atomicExch(word, 0); }
};
struct Ticket {                    // fetch-and-add ticket; word[0] next, word[1] serving
    int* word;
    __device__ void lock() const {
        int me = atomicAdd(&word[0], 1);
        while (poll(&word[1]) != me) {}
        __threadfence();
    }
    __device__ void unlock() const { __threadfence(); atomicAdd(&word[1], 1); }
};
struct BinarySem {                 // libcu++ cuda::binary_semaphore (placement-new'd in the state)
    int* word;
    __device__ void lock() const { reinterpret_cast<binary_sem*>(word)->acquire(); }
    __device__ void unlock() const { reinterpret_cast<binary_sem*>(word)->release(); }
};

// ---- the contended counter: every thread takes the lock `iters` times ---------------------
template <class Lock>
__device__ void counter(int* state, int* count, int iters) {
    Lock lock{state};
    for (int i = 0; i < iters; ++i) {
        lock.lock();
        *(volatile int*)count = *(volatile int*)count + 1;
        lock.unlock();
    }
}
extern "C" __global__ void counter_tas(int* s, int* c, int n) { counter<Tas>(s, c, n); }
extern "C" __global__ void counter_ttas(int* s, int* c, int n) { counter<Ttas>(s, c, n); }
extern "C" __global__ void counter_ticket(int* s, int* c, int n) { counter<Ticket>(s, c, n); }
extern "C" __global__ void counter_binary_semaphore(int* s, int* c, int n) { counter<BinarySem>(s, c, n); }
extern "C" __global__ void counter_atomic_add(int*, int* c, int n) {
    for (int i = 0; i < n; ++i) atomicAdd(c, 1);
}

// ---- a mutex per block: thread 0 takes it for the block, the block works inside -----------
template <class Lock>
__device__ void block_mutex(int* state, int* count, int iters) {
    Lock lock{state};
    for (int i = 0; i < iters; ++i) {
        if (threadIdx.x == 0) {
            lock.lock();
            *(volatile int*)count = *(volatile int*)count + 1;
            lock.unlock();
        }
        __syncthreads();
    }
}
extern "C" __global__ void block_tas(int* s, int* c, int n) { block_mutex<Tas>(s, c, n); }
extern "C" __global__ void block_ttas(int* s, int* c, int n) { block_mutex<Ttas>(s, c, n); }
extern "C" __global__ void block_ticket(int* s, int* c, int n) { block_mutex<Ticket>(s, c, n); }
extern "C" __global__ void block_binary_semaphore(int* s, int* c, int n) { block_mutex<BinarySem>(s, c, n); }

// ---- a counting semaphore per block: thread 0 takes a permit; the holders are counted ----
// c[0]: holders now, c[1]: most holders seen, c[2]: entries.
extern "C" __global__ void block_counting_semaphore(int* s, int* c, int n) {
    counting_sem* sem = reinterpret_cast<counting_sem*>(s);
    for (int i = 0; i < n; ++i) {
        if (threadIdx.x == 0) {
            sem->acquire();
            int now = atomicAdd(&c[0], 1) + 1;
            atomicMax(&c[1], now);
            atomicAdd(&c[2], 1);
            atomicSub(&c[0], 1);
            sem->release();
        }
        __syncthreads();
    }
}

// The semaphores' constructors are constexpr, but the state comes zeroed from the host:
// construct them in place first (one thread, before the timed launches).
extern "C" __global__ void init_binary_semaphore(int* s) { new (s) binary_sem(1); }
extern "C" __global__ void init_counting_semaphore(int* s, int permits) { new (s) counting_sem(permits); }
