// Nested @thread locks on an H100: which polling-loop shapes finish and which hang.
//
// Every thread moves one unit between two accounts (a bank transfer), holding the lower
// account's lock while it takes the higher one's (the E0703-clean order), in the structured
// form syncc emits: each wait is a polling loop whose body runs the section up to its release.
// The variants differ in the lock (ticket, ttas) and in where __syncwarp goes:
//
//   none    no __syncwarp at all
//   every   syncc before issue 14: mask = activemask at each loop's head, __syncwarp(mask) at
//           each loop's latch (the inner loop's lanes and the outer loop's spinners alike)
//   inner   only in loops whose body holds no other wait (here: the inner loop)
//   spinners  outer loop: the lanes that failed meet among themselves (ballot at the head);
//           inner loop as `every`
//
// A spin that runs past the deadline sets an abort flag; every spin checks it, so a hung
// variant ends and is reported as HANG instead of taking the GPU with it.
//
//   nvcc -O3 -arch=sm_90 -o nested_locks nested_locks.cu && ./nested_locks
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <random>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(2); } } while (0)

enum Lock { TICKET = 0, TTAS = 1 };
enum Sync { NONE = 0, EVERY = 1, INNER = 2, SPINNERS = 3 };
static const char* LOCK_NAME[] = {"ticket", "ttas"};
static const char* SYNC_NAME[] = {"none", "every", "inner", "spinners"};

struct Ctl { int abort; unsigned long long deadline; };

__device__ __forceinline__ unsigned long long now() {
    unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;
}
__device__ __forceinline__ int ld_acquire(const int* p) {
    int v; asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v;
}
__device__ __forceinline__ int ld_relaxed(const int* p) {
    int v; asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v;
}
__device__ __forceinline__ int atom_add(int* p, int v) {
    int o; asm volatile("atom.relaxed.gpu.global.add.s32 %0, [%1], %2;" : "=r"(o) : "l"(p), "r"(v) : "memory"); return o;
}
__device__ __forceinline__ void red_release_add(int* p, int v) {
    asm volatile("red.release.gpu.global.add.s32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ int cas_acquire(int* p, int e, int n) {
    int o; asm volatile("atom.acquire.gpu.global.cas.b32 %0, [%1], %2, %3;" : "=r"(o) : "l"(p), "r"(e), "r"(n) : "memory"); return o;
}
__device__ __forceinline__ void st_release(int* p, int v) {
    asm volatile("st.release.gpu.global.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

template <int L> struct Locks;
template <> struct Locks<TICKET> {
    int *next, *serving;
    __device__ int enter(int i) const { return atom_add(&next[i], 1); }
    __device__ bool poll(int i, int ticket) const { return ld_acquire(&serving[i]) == ticket; }
    __device__ void release(int i) const { red_release_add(&serving[i], 1); }
};
template <> struct Locks<TTAS> {
    int *word, *unused;
    __device__ int enter(int) const { return 0; }
    __device__ bool poll(int i, int) const { return ld_relaxed(&word[i]) == 0 && cas_acquire(&word[i], 0, 1) == 0; }
    __device__ void release(int i) const { st_release(&word[i], 0); }
};

__device__ __forceinline__ bool timed_out(Ctl* ctl) {
    if (*(volatile int*)&ctl->abort) return true;
    if (now() > ctl->deadline) { atomicExch(&ctl->abort, 1); return true; }
    return false;
}

template <int L, int S>
__global__ void transfer(Locks<L> locks, int* balance, const int* src, const int* dst, int iters, Ctl* ctl) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    for (int it = 0; it < iters; it++) {
        int a = src[g * iters + it], b = dst[g * iters + it];
        if (a == b) continue;
        int lo = min(a, b), hi = max(a, b);
        int t1 = locks.enter(lo);
        bool done1 = false;
        do {
            unsigned m1 = __activemask();
            bool ok1 = locks.poll(lo, t1);
            if (S == SPINNERS) {
                unsigned failed = __ballot_sync(m1, !ok1);
                if (!ok1) __syncwarp(failed);
            }
            if (ok1) {
                int t2 = locks.enter(hi);
                bool done2 = false;
                do {
                    unsigned m2 = __activemask();
                    if (locks.poll(hi, t2)) {
                        balance[a] -= 1;
                        balance[b] += 1;
                        locks.release(hi);
                        done2 = true;
                    }
                    if (S != NONE) __syncwarp(m2);
                    if (!done2 && timed_out(ctl)) return;
                } while (!done2);
                locks.release(lo);
                done1 = true;
            }
            if (S == EVERY) __syncwarp(m1);
            if (!done1 && timed_out(ctl)) return;
        } while (!done1);
    }
}

// One lock, every thread: does a polling loop with no __syncwarp finish (seed 003's livelock)?
template <int L, int S>
__global__ void counter(Locks<L> locks, int* total, int iters, Ctl* ctl) {
    for (int it = 0; it < iters; it++) {
        int t = locks.enter(0);
        bool done = false;
        do {
            unsigned m = __activemask();
            if (locks.poll(0, t)) {
                total[0] += 1;
                locks.release(0);
                done = true;
            }
            if (S != NONE) __syncwarp(m);
            if (!done && timed_out(ctl)) return;
        } while (!done);
    }
}

// Seed 003 Listing 3.3: lane i waits for lane i-1's flag, which lane i-1 sets after its loop.
template <int S>
__global__ void listing33(int* flag, Ctl* ctl) {
    int t = threadIdx.x;
    while (true) {
        if (ld_relaxed(&flag[t]) != 0) {
            if (S != NONE) __syncwarp(__activemask());
            if (timed_out(ctl)) return;
        } else {
            break;
        }
    }
    if (t < 31) st_release(&flag[t + 1], 0);
}

__global__ void set_deadline(Ctl* ctl, unsigned long long after) { ctl->deadline = now() + after; }

struct Shape { int blocks, threads, accounts, iters; };

template <int L, int S>
static void run_transfer(const Shape& s, int trials, double deadline_s) {
    int n = s.blocks * s.threads;
    int hangs = 0, wrong = 0; float worst_ms = 0;
    for (int trial = 0; trial < trials; trial++) {
        std::mt19937 rng(1000 * trial + s.accounts);
        std::vector<int> src(n * s.iters), dst(n * s.iters), want(s.accounts, 100);
        for (int i = 0; i < n * s.iters; i++) {
            src[i] = rng() % s.accounts; dst[i] = rng() % s.accounts;
            if (src[i] != dst[i]) { want[src[i]] -= 1; want[dst[i]] += 1; }
        }
        int *d_src, *d_dst, *d_bal, *d_a, *d_b; Ctl* d_ctl;
        CHECK(cudaMalloc(&d_src, 4 * src.size())); CHECK(cudaMalloc(&d_dst, 4 * dst.size()));
        CHECK(cudaMalloc(&d_bal, 4 * s.accounts)); CHECK(cudaMalloc(&d_a, 4 * s.accounts));
        CHECK(cudaMalloc(&d_b, 4 * s.accounts)); CHECK(cudaMalloc(&d_ctl, sizeof(Ctl)));
        CHECK(cudaMemcpy(d_src, src.data(), 4 * src.size(), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(d_dst, dst.data(), 4 * dst.size(), cudaMemcpyHostToDevice));
        std::vector<int> hundred(s.accounts, 100);
        CHECK(cudaMemcpy(d_bal, hundred.data(), 4 * s.accounts, cudaMemcpyHostToDevice));
        CHECK(cudaMemset(d_a, 0, 4 * s.accounts)); CHECK(cudaMemset(d_b, 0, 4 * s.accounts));
        // the deadline in the GPU's own clock (globaltimer), set on the device
        Ctl ctl = {0, 0};
        CHECK(cudaMemcpy(d_ctl, &ctl, sizeof ctl, cudaMemcpyHostToDevice));
        set_deadline<<<1, 1>>>(d_ctl, (unsigned long long)(deadline_s * 1e9));
        Locks<L> locks{d_a, d_b};
        cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
        cudaEventRecord(e0);
        transfer<L, S><<<s.blocks, s.threads>>>(locks, d_bal, d_src, d_dst, s.iters, d_ctl);
        cudaEventRecord(e1);
        CHECK(cudaDeviceSynchronize());
        float ms; cudaEventElapsedTime(&ms, e0, e1); if (ms > worst_ms) worst_ms = ms;
        CHECK(cudaMemcpy(&ctl, d_ctl, sizeof ctl, cudaMemcpyDeviceToHost));
        std::vector<int> got(s.accounts);
        CHECK(cudaMemcpy(got.data(), d_bal, 4 * s.accounts, cudaMemcpyDeviceToHost));
        if (ctl.abort) hangs++;
        else if (got != want) wrong++;
        cudaFree(d_src); cudaFree(d_dst); cudaFree(d_bal); cudaFree(d_a); cudaFree(d_b); cudaFree(d_ctl);
    }
    printf("transfer %-7s %-9s blocks %4d threads %4d accounts %5d iters %3d: %s (%d/%d hung, %d wrong, slowest %.2f ms)\n",
           LOCK_NAME[L], SYNC_NAME[S], s.blocks, s.threads, s.accounts, s.iters,
           hangs ? "HANG" : wrong ? "WRONG" : "ok", hangs, trials, wrong, worst_ms);
    fflush(stdout);
}

template <int L, int S>
static void run_counter(int blocks, int threads, int iters, double deadline_s) {
    int *d_total, *d_a, *d_b; Ctl* d_ctl;
    CHECK(cudaMalloc(&d_total, 4)); CHECK(cudaMalloc(&d_a, 4)); CHECK(cudaMalloc(&d_b, 4));
    CHECK(cudaMalloc(&d_ctl, sizeof(Ctl)));
    CHECK(cudaMemset(d_total, 0, 4)); CHECK(cudaMemset(d_a, 0, 4)); CHECK(cudaMemset(d_b, 0, 4));
    CHECK(cudaMemset(d_ctl, 0, sizeof(Ctl)));
    set_deadline<<<1, 1>>>(d_ctl, (unsigned long long)(deadline_s * 1e9));
    counter<L, S><<<blocks, threads>>>(Locks<L>{d_a, d_b}, d_total, iters, d_ctl);
    CHECK(cudaDeviceSynchronize());
    Ctl ctl; int total;
    CHECK(cudaMemcpy(&ctl, d_ctl, sizeof ctl, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&total, d_total, 4, cudaMemcpyDeviceToHost));
    long want = (long)blocks * threads * iters;
    printf("counter  %-7s %-9s blocks %4d threads %4d iters %3d: %s (total %d of %ld)\n", LOCK_NAME[L], SYNC_NAME[S],
           blocks, threads, iters, ctl.abort ? "HANG" : total == want ? "ok" : "WRONG", total, want);
    fflush(stdout);
    cudaFree(d_total); cudaFree(d_a); cudaFree(d_b); cudaFree(d_ctl);
}

template <int S>
static void run_listing33(double deadline_s) {
    int* d_flag; Ctl* d_ctl;
    CHECK(cudaMalloc(&d_flag, 4 * 32)); CHECK(cudaMalloc(&d_ctl, sizeof(Ctl)));
    std::vector<int> flag(32, 1); flag[0] = 0;      // lane 0 may go; lane i waits for lane i-1
    CHECK(cudaMemcpy(d_flag, flag.data(), 4 * 32, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_ctl, 0, sizeof(Ctl)));
    set_deadline<<<1, 1>>>(d_ctl, (unsigned long long)(deadline_s * 1e9));
    listing33<S><<<1, 32>>>(d_flag, d_ctl);
    CHECK(cudaDeviceSynchronize());
    Ctl ctl; CHECK(cudaMemcpy(&ctl, d_ctl, sizeof ctl, cudaMemcpyDeviceToHost));
    printf("listing3.3 %-9s: %s\n", SYNC_NAME[S], ctl.abort ? "HANG" : "ok");
    fflush(stdout);
    cudaFree(d_flag); cudaFree(d_ctl);
}

template <int L, int S>
static void transfers(const std::vector<Shape>& shapes, int trials, double deadline) {
    for (const Shape& s : shapes) run_transfer<L, S>(s, trials, deadline);
}

int main(int argc, char** argv) {
    int trials = argc > 1 ? atoi(argv[1]) : 3;
    double deadline = argc > 2 ? atof(argv[2]) : 1.0;
    cudaDeviceProp p; CHECK(cudaGetDeviceProperties(&p, 0));
    printf("device: %s, %d SMs, deadline %.1f s, %d trials\n", p.name, p.multiProcessorCount, deadline, trials);
    run_listing33<NONE>(deadline); run_listing33<EVERY>(deadline);
    run_counter<TICKET, NONE>(132, 256, 4, deadline); run_counter<TICKET, EVERY>(132, 256, 4, deadline);
    run_counter<TTAS, NONE>(132, 256, 4, deadline); run_counter<TTAS, EVERY>(132, 256, 4, deadline);
    std::vector<Shape> shapes = {{2, 64, 16, 1}, {1, 64, 32, 1}, {2, 64, 16, 16}, {1, 32, 4, 64},
                                 {132, 256, 16, 4}, {132, 256, 1024, 4}, {528, 128, 64, 2}};
    transfers<TICKET, EVERY>(shapes, trials, deadline);
    transfers<TICKET, NONE>(shapes, trials, deadline);
    transfers<TICKET, INNER>(shapes, trials, deadline);
    transfers<TICKET, SPINNERS>(shapes, trials, deadline);
    transfers<TTAS, EVERY>(shapes, trials, deadline);
    transfers<TTAS, NONE>(shapes, trials, deadline);
    transfers<TTAS, INNER>(shapes, trials, deadline);
    transfers<TTAS, SPINNERS>(shapes, trials, deadline);
    return 0;
}
