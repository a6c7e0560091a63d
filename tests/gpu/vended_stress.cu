// The stdlib's vended CUDA types under load (tests/app/test_stdlib.py, marker gpu): each mutex and
// semaphore type does at least 100 000 operations; a plain (non-atomic) counter updated inside
// must come out exact, and an occupancy counter kept with atomics must never exceed the bound.
// The grid barriers run rounds in which every block checks that every other block finished the
// round before. The global queue moves 135 168 values between blocks, each taken exactly once,
// and its try_put fills it to capacity. Prints one line per type; exits 1 on any violation.
#include <cstdio>
#include <cstring>
#include "mutex.cuh"
#include "semaphore.cuh"
#include "barrier.cuh"
#include "channel.cuh"
#include "rwlock.cuh"
#include "latch.cuh"
#include "queue.cuh"
#include <vector>

struct Tally { int total; int inside; int most; };

// The party's representative does the bookkeeping: a @warp type runs the body on every lane of
// the warp, a @block type on every thread of the block.
enum Party { THREAD, WARP, BLOCK };

__device__ bool represents(Party party) {
    if (party == THREAD) return true;
    if (party == WARP) return (threadIdx.x & 31) == 0;
    return threadIdx.x == 0;
}

__device__ void inside(Tally* t, Party party, bool exclusive) {
    if (!represents(party)) return;
    int now = atomicAdd(&t->inside, 1) + 1;
    atomicMax(&t->most, now);
    if (exclusive) {
        volatile int* total = &t->total;
        *total = *total + 1;             // not atomic: only exclusion keeps it exact
    } else {
        atomicAdd(&t->total, 1);         // a semaphore lets several in at once
    }
    __threadfence();
    atomicSub(&t->inside, 1);
}

template <class Mutex>
__global__ void hammer(Mutex m, Tally* t, Party party, int iterations) {
    for (int i = 0; i < iterations; ++i) m.critical([&] { inside(t, party, true); });
}

template <class Sem>
__global__ void crowd(Sem s, Tally* t, Party party, int iterations) {
    for (int i = 0; i < iterations; ++i) s.acquire([&] { inside(t, party, false); });
}

// bounded waits: a permit taken within `attempts` tries is held (within the bound) and posted back
template <class Sem>
__global__ void bounded(Sem s, Tally* t, int* gave_up, int iterations) {
    for (int i = 0; i < iterations; ++i) {
        if (s.try_acquire_for(8)) {
            inside(t, THREAD, false);
            s.post();
        } else {
            atomicAdd(gave_up, 1);
        }
    }
}

static int failures = 0;

static int32_t* zeros(size_t n, int value = 0) {
    int32_t* p;
    cudaMalloc(&p, n * sizeof(int32_t));
    cudaMemset(p, value, n * sizeof(int32_t));     // 0 or 0xFF (every element -1)
    return p;
}

static uint64_t* zeros64(size_t n) {              // a ring's slots: value and sequence word, 0 at first
    return reinterpret_cast<uint64_t*>(zeros(2 * n));
}

template <class Launch>
static void measure(const char* name, Party party, int blocks, int threads, int iterations, int bound,
                    Launch launch) {
    Tally* t;
    cudaMallocManaged(&t, sizeof(Tally));
    std::memset(t, 0, sizeof(Tally));
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    launch(t, blocks, threads, iterations);
    cudaEventRecord(stop);
    cudaError_t err = cudaDeviceSynchronize();
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    int parties = party == THREAD ? blocks * threads : party == WARP ? blocks * threads / 32 : blocks;
    long expected = (long)parties * iterations;
    bool ok = err == cudaSuccess && t->total == expected && t->most <= bound && t->inside == 0;
    std::printf("%-28s %8ld ops  total %8d  most inside %3d (bound %d)  %8.2f ms  %s\n", name, expected,
                t->total, t->most, bound, ms, ok ? "ok" : (err != cudaSuccess ? cudaGetErrorString(err) : "VIOLATION"));
    failures += !ok;
    cudaFree(t);
}

// every block checks, after each round's sync, that every block has finished the round
template <class Barrier>
__global__ void rounds(Barrier b, int* done, int* bad, int count) {
    for (int r = 1; r <= count; ++r) {
        if (threadIdx.x == 0) atomicAdd(&done[blockIdx.x], 1);
        b.sync();
        if (threadIdx.x == 0)
            for (int other = 0; other < gridDim.x; ++other)
                if (atomicAdd(&done[other], 0) < r) atomicAdd(bad, 1);
        b.sync();                        // nobody starts the next round before everyone checked
    }
}

template <class Barrier>
static void grid_barrier(const char* name, Barrier b) {
    int device = 0, sms = 0, per_sm = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rounds<Barrier>, 128, 0);
    int blocks = sms * (per_sm < 2 ? per_sm : 2);
    int count = 200;
    int* done = zeros(blocks);
    int* bad = zeros(1);
    void* args[] = {&b, &done, &bad, &count};
    cudaError_t err = cudaLaunchCooperativeKernel((void*)rounds<Barrier>, blocks, 128, args, 0, 0);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    int h_bad = -1;
    cudaMemcpy(&h_bad, bad, sizeof(int), cudaMemcpyDeviceToHost);
    bool ok = err == cudaSuccess && h_bad == 0;
    std::printf("%-28s %8d syncs (%d blocks x %d rounds x 2)  %s\n", name, blocks * count * 2, blocks, count,
                ok ? "ok" : (err != cudaSuccess ? cudaGetErrorString(err) : "VIOLATION"));
    failures += !ok;
}

// every thread puts its own slot and gets the slot of the thread one block ahead
__global__ void pass_on(syncc_channel::flag c, int round, int* wrong) {
    int me = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
    c.put(me, me * 7 + round);
    int from = (me + blockDim.x) % n;
    if (c.get(from) != from * 7 + round) atomicAdd(wrong, 1);
}

static void channel_messages() {
    const int rounds = 100, blocks = 8, threads = 128;   // 1024 slots, each put once per launch
    int* wrong = zeros(1);
    // a global @thread slot is one 64-bit word on the GPU: the value and its ready flag
    uint64_t* words;
    cudaMalloc(&words, 1024 * sizeof(uint64_t));
    syncc_channel::flag c{words};
    cudaError_t err = cudaSuccess;
    for (int r = 0; r < rounds && err == cudaSuccess; ++r) {
        cudaMemset(c.word, 0, 1024 * sizeof(uint64_t));  // a channel is write-once per launch
        pass_on<<<blocks, threads>>>(c, r, wrong);
        err = cudaDeviceSynchronize();
    }
    int h_wrong = -1;
    cudaMemcpy(&h_wrong, wrong, sizeof(int), cudaMemcpyDeviceToHost);
    bool ok = err == cudaSuccess && h_wrong == 0;
    std::printf("%-28s %8d msgs  wrong %d  %s\n", "channel flag @thread", rounds * blocks * threads, h_wrong,
                ok ? "ok" : (err != cudaSuccess ? cudaGetErrorString(err) : "VIOLATION"));
    failures += !ok;
}

// one thread in 8 writes, the others read: a writer is alone, readers never meet a writer
struct RwTally { int readers; int writers; int bad; int reads; int writes; int most_readers; };

template <class Rw>
__global__ void read_mostly(Rw rw, RwTally* t, int iterations) {
    int me = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < iterations; ++i) {
        if ((me + i) % 8 == 0) {
            rw.write([&] {
                if (atomicAdd(&t->writers, 1) != 0 || atomicAdd(&t->readers, 0) != 0) atomicAdd(&t->bad, 1);
                volatile int* writes = &t->writes;
                *writes = *writes + 1;          // not atomic: only the writer's exclusion keeps it exact
                __threadfence();
                atomicSub(&t->writers, 1);
            });
        } else {
            rw.read([&] {
                atomicMax(&t->most_readers, atomicAdd(&t->readers, 1) + 1);
                if (atomicAdd(&t->writers, 0) != 0) atomicAdd(&t->bad, 1);
                atomicAdd(&t->reads, 1);
                atomicSub(&t->readers, 1);
            });
        }
    }
}

template <class Rw>
static void rwlock(const char* name, Rw rw) {
    const int blocks = 132, threads = 256, iterations = 4;
    RwTally* t;
    cudaMallocManaged(&t, sizeof(RwTally));
    std::memset(t, 0, sizeof(RwTally));
    read_mostly<<<blocks, threads>>>(rw, t, iterations);
    cudaError_t err = cudaDeviceSynchronize();
    long ops = (long)blocks * threads * iterations;
    bool ok = err == cudaSuccess && t->bad == 0 && t->reads + t->writes == ops && t->writes == ops / 8;
    std::printf("%-28s %8ld ops  writes %6d  reads %6d  most readers %4d  bad %d  %s\n", name, ops, t->writes,
                t->reads, t->most_readers, t->bad, ok ? "ok" : (err != cudaSuccess ? cudaGetErrorString(err) : "VIOLATION"));
    failures += !ok;
    cudaFree(t);
}

// 256 threads count down a latch; nobody passes its wait before all 256 have
__global__ void count_then_wait(syncc_latch::threads latch, int* arrived, int* early) {
    int me = blockIdx.x * blockDim.x + threadIdx.x;
    atomicExch(&arrived[me], 1);
    latch.arrive_and_wait();
    for (int other = 0; other < 256; ++other)
        if (atomicAdd(&arrived[other], 0) == 0) atomicAdd(early, 1);
}

static void latches() {
    const int launches = 400;
    int* arrived = zeros(256);
    int* early = zeros(1);
    int32_t* count = zeros(1);
    cudaError_t err = cudaSuccess;
    for (int l = 0; l < launches && err == cudaSuccess; ++l) {
        int first = 256;
        cudaMemcpy(count, &first, sizeof(int), cudaMemcpyHostToDevice);   // single use: a fresh count
        cudaMemset(arrived, 0, 256 * sizeof(int));
        count_then_wait<<<2, 128>>>(syncc_latch::threads{count}, arrived, early);
        err = cudaDeviceSynchronize();
    }
    int h_early = -1;
    cudaMemcpy(&h_early, early, sizeof(int), cudaMemcpyDeviceToHost);
    bool ok = err == cudaSuccess && h_early == 0;
    std::printf("%-28s %8d count-downs  early %d  %s\n", "latch threads(256)", launches * 256, h_early,
                ok ? "ok" : (err != cudaSuccess ? cudaGetErrorString(err) : "VIOLATION"));
    failures += !ok;
}

// 66 blocks put and 66 take through the vended global queue: every value taken exactly once
__global__ void stream_values(syncc_queue::stream q, int producers, int per, int* seen) {
    if ((int)blockIdx.x < producers) {
        int me = blockIdx.x * blockDim.x + threadIdx.x;
        for (int k = 0; k < per; ++k) q.put(me * per + k);
    } else {
        for (int k = 0; k < per; ++k) atomicAdd(&seen[q.get()], 1);
    }
}

// 66 blocks gather their threads' values in shared memory, and thread 0 puts all 256 with one
// reservation (put_many: one atomic for 256 tickets, then each slot as it frees); 66 blocks take
// them one at a time: every value taken exactly once
__global__ void gathered_values(syncc_queue::stream q, int producers, int rounds, int* seen) {
    __shared__ int32_t buf[256];
    if ((int)blockIdx.x < producers) {
        for (int r = 0; r < rounds; ++r) {
            buf[threadIdx.x] = (blockIdx.x * rounds + r) * blockDim.x + threadIdx.x;
            __syncthreads();
            if (threadIdx.x == 0) q.put_many(buf, blockDim.x);
            __syncthreads();
        }
    } else {
        for (int r = 0; r < rounds; ++r) atomicAdd(&seen[q.get()], 1);
    }
}

// the same through the consumers' loop: every producer thread closes after its last put (the
// closing count starts at the number of writers), and each consumer takes values until `next`
// says the queue is closed and drained
__global__ void drain_values(syncc_queue::stream q, int producers, int per, int* seen, int* ended) {
    if ((int)blockIdx.x < producers) {
        int me = blockIdx.x * blockDim.x + threadIdx.x;
        for (int k = 0; k < per; ++k) q.put(me * per + k);
        q.close();
    } else {
        int v = 0;
        while (q.next(v)) atomicAdd(&seen[v], 1);
        atomicAdd(ended, 1);
    }
}

// spsc in a block: lane l of warp 0 feeds lane l of warp 1 through lanes[l]; each value must come
// out in order (FIFO per producer), every one of them
__global__ void lane_pipes(int per, int* wrong) {
    __shared__ int32_t data[512], count[64], seq[512];
    syncc_queue::lanes q{data, count, seq};
    q.init();
    __syncthreads();
    const int lane = threadIdx.x % 32;
    if (threadIdx.x < 32) {
        for (int k = 0; k < per; ++k) q.put(lane, lane * per + k);
    } else {
        int bad = 0;
        for (int k = 0; k < per; ++k) bad += q.get(lane) != lane * per + k;
        if (bad) atomicAdd(wrong, bad);
    }
}

// mbarrier stages: warp 0 puts 32 values at a time, warp 1 gets them; lane l's come out in order
__global__ void staged(int per, int* wrong) {
    __shared__ int32_t data[3 * 32], counts[64];
    __shared__ uint64_t bars[6];
    syncc_queue::stages q{data, bars, counts};
    q.init();
    __syncthreads();
    const int lane = threadIdx.x % 32;
    if (threadIdx.x < 32) {
        for (int k = 0; k < per; ++k) q.put(lane * per + k);
    } else if (threadIdx.x < 64) {
        int bad = 0;
        for (int k = 0; k < per; ++k) bad += q.get() != lane * per + k;
        if (bad) atomicAdd(wrong, bad);
    }
}

// spsc between blocks: thread 0 of block 0 puts, thread 0 of block 1 gets, in order
__global__ void linked(syncc_queue::link q, int n, int* wrong) {
    __shared__ int32_t count[2];
    syncc_queue::link mine{q.data, count, q.seq};
    mine.init_block();
    __syncthreads();
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 0) {
        for (int k = 0; k < n; ++k) mine.put(k);
    } else {
        int bad = 0;
        for (int k = 0; k < n; ++k) bad += mine.get() != k;
        *wrong = bad;
    }
}

// one thread offers more values than the queue holds: exactly its capacity go in
__global__ void offer(syncc_queue::stream q, int n, int* took) {
    for (int i = 0; i < n; ++i) took[0] += q.try_put(i) ? 1 : 0;
}

static void queues() {
    const int producers = 66, threads = 256, per = 8, n = producers * threads * per;
    int* seen = zeros(n);
    stream_values<<<2 * producers, threads>>>(syncc_queue::stream{zeros64(1024), zeros(2), zeros(1)},
                                              producers, per, seen);
    cudaError_t err = cudaDeviceSynchronize();
    std::vector<int> h(n);
    cudaMemcpy(h.data(), seen, n * sizeof(int), cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int v : h) wrong += v != 1;
    int* took = zeros(1);
    offer<<<1, 1>>>(syncc_queue::stream{zeros64(1024), zeros(2), zeros(1)}, 1100, took);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    int h_took = -1;
    cudaMemcpy(&h_took, took, sizeof(int), cudaMemcpyDeviceToHost);
    bool ok = err == cudaSuccess && wrong == 0 && h_took == 1024;
    std::printf("%-28s %8d values  not taken once %d  try_put took %d of 1100 (capacity 1024)  %s\n",
                "queue stream (ring)", n, wrong, h_took, ok ? "ok" : (err != cudaSuccess ? cudaGetErrorString(err) : "VIOLATION"));
    failures += !ok;
    // put_many: each producer block's 256 values with one reservation per round
    int* gathered = zeros(n);
    gathered_values<<<2 * producers, threads>>>(syncc_queue::stream{zeros64(1024), zeros(2), zeros(1)},
                                                producers, per, gathered);
    err = cudaDeviceSynchronize();
    cudaMemcpy(h.data(), gathered, n * sizeof(int), cudaMemcpyDeviceToHost);
    wrong = 0;
    for (int v : h) wrong += v != 1;
    ok = err == cudaSuccess && wrong == 0;
    std::printf("%-28s %8d values  not taken once %d  %s\n", "queue stream put_many", n, wrong,
                ok ? "ok" : (err != cudaSuccess ? cudaGetErrorString(err) : "VIOLATION"));
    failures += !ok;
    // closing: producers * threads writers, and every consumer's loop must end
    int* drained = zeros(n);
    int* ended = zeros(1);
    int32_t* writers = zeros(1);
    const int count = producers * threads;
    cudaMemcpy(writers, &count, sizeof(int), cudaMemcpyHostToDevice);
    drain_values<<<2 * producers, threads>>>(syncc_queue::stream{zeros64(1024), zeros(2), writers},
                                             producers, per, drained, ended);
    err = cudaDeviceSynchronize();
    cudaMemcpy(h.data(), drained, n * sizeof(int), cudaMemcpyDeviceToHost);
    wrong = 0;
    for (int v : h) wrong += v != 1;
    int h_ended = -1;
    cudaMemcpy(&h_ended, ended, sizeof(int), cudaMemcpyDeviceToHost);
    ok = err == cudaSuccess && wrong == 0 && h_ended == count;
    std::printf("%-28s %8d values  not taken once %d  loops ended %d of %d  %s\n", "queue stream close/next", n,
                wrong, h_ended, count, ok ? "ok" : (err != cudaSuccess ? cudaGetErrorString(err) : "VIOLATION"));
    failures += !ok;
    // spsc: 132 blocks of 32 lane pipes, and one link between two blocks
    const int pipes_per = 1024, link_n = 1 << 20;
    int* bad = zeros(1);
    lane_pipes<<<132, 64>>>(pipes_per, bad);
    err = cudaDeviceSynchronize();
    int h_bad = -1;
    cudaMemcpy(&h_bad, bad, sizeof(int), cudaMemcpyDeviceToHost);
    ok = err == cudaSuccess && h_bad == 0;
    std::printf("%-28s %8d values  out of order or lost %d  %s\n", "queue lanes (spsc, shared)", 132 * 32 * pipes_per,
                h_bad, ok ? "ok" : (err != cudaSuccess ? cudaGetErrorString(err) : "VIOLATION"));
    failures += !ok;
    int* staged_bad = zeros(1);
    staged<<<132, 64>>>(pipes_per * 4, staged_bad);
    err = cudaDeviceSynchronize();
    cudaMemcpy(&h_bad, staged_bad, sizeof(int), cudaMemcpyDeviceToHost);
    ok = err == cudaSuccess && h_bad == 0;
    std::printf("%-28s %8d values  out of order or lost %d  %s\n", "queue stages (mbarrier)", 132 * 32 * pipes_per * 4,
                h_bad, ok ? "ok" : (err != cudaSuccess ? cudaGetErrorString(err) : "VIOLATION"));
    failures += !ok;
    int* link_bad = zeros(1, 0xFF);
    linked<<<2, 32>>>(syncc_queue::link{zeros(1024), nullptr, zeros(1024)}, link_n, link_bad);
    err = cudaDeviceSynchronize();
    cudaMemcpy(&h_bad, link_bad, sizeof(int), cudaMemcpyDeviceToHost);
    ok = err == cudaSuccess && h_bad == 0;
    std::printf("%-28s %8d values  out of order or lost %d  %s\n", "queue link (spsc, global)", link_n,
                h_bad, ok ? "ok" : (err != cudaSuccess ? cudaGetErrorString(err) : "VIOLATION"));
    failures += !ok;
}

int main() {
    const int B = 132, T = 256;
    // mutexes: a plain counter must come out exact, and nobody else inside
    measure("mutex ticket @thread", THREAD, B, T, 4, 1, [](Tally* t, int b, int th, int it) {
        hammer<<<b, th>>>(syncc_mutex::ticket{zeros(1), zeros(1)}, t, THREAD, it); });
    measure("mutex tas @thread", THREAD, B, 64, 12, 1, [](Tally* t, int b, int th, int it) {
        hammer<<<b, th>>>(syncc_mutex::tas{zeros(1)}, t, THREAD, it); });
    measure("mutex ttas @thread", THREAD, B, 64, 12, 1, [](Tally* t, int b, int th, int it) {
        hammer<<<b, th>>>(syncc_mutex::ttas{zeros(1)}, t, THREAD, it); });
    measure("mutex backoff @thread", THREAD, B, 64, 12, 1, [](Tally* t, int b, int th, int it) {
        hammer<<<b, th>>>(syncc_mutex::backoff{zeros(1)}, t, THREAD, it); });
    measure("mutex mcs @thread", THREAD, B, T, 4, 1, [](Tally* t, int b, int th, int it) {
        int n = b * th;
        hammer<<<b, th>>>(syncc_mutex::mcs{zeros(1, 0xFF), zeros(1, 0xFF), zeros(n, 0xFF), zeros(n), zeros(n)},
                          t, THREAD, it); });
    measure("mutex mcs2 @thread", THREAD, B, T, 4, 1, [](Tally* t, int b, int th, int it) {
        int n = 2 * b * th;
        hammer<<<b, th>>>(syncc_mutex::mcs2{zeros(1, 0xFF), zeros(1, 0xFF), zeros(n, 0xFF), zeros(n), zeros(n)},
                          t, THREAD, it); });
    measure("mutex warp_ticket @warp", WARP, B, T, 100, 1, [](Tally* t, int b, int th, int it) {
        hammer<<<b, th>>>(syncc_mutex::warp_ticket{zeros(1), zeros(1)}, t, WARP, it); });
    measure("mutex block @block", BLOCK, 264, T, 400, 1, [](Tally* t, int b, int th, int it) {
        hammer<<<b, th>>>(syncc_mutex::block{zeros(1), zeros(1)}, t, BLOCK, it); });
    // semaphores: never more holders than permits
    measure("semaphore spin(4) @thread", THREAD, B, 64, 12, 4, [](Tally* t, int b, int th, int it) {
        int32_t* c = zeros(1); int four = 4; cudaMemcpy(c, &four, 4, cudaMemcpyHostToDevice);
        crowd<<<b, th>>>(syncc_semaphore::spin{c}, t, THREAD, it); });
    measure("semaphore sleeping(4) @thread", THREAD, B, T, 4, 4, [](Tally* t, int b, int th, int it) {
        crowd<<<b, th>>>(syncc_semaphore::sleeping{zeros(1), zeros(1), zeros(1)}, t, THREAD, it); });
    measure("semaphore warps(2) @warp", WARP, B, T, 100, 2, [](Tally* t, int b, int th, int it) {
        crowd<<<b, th>>>(syncc_semaphore::warps{zeros(1), zeros(1), zeros(1)}, t, WARP, it); });
    measure("semaphore blocks(2) @block", BLOCK, 264, T, 400, 2, [](Tally* t, int b, int th, int it) {
        crowd<<<b, th>>>(syncc_semaphore::blocks{zeros(1), zeros(1), zeros(1)}, t, BLOCK, it); });
    for (int kind = 0; kind < 2; ++kind) {      // try_acquire_for: bound kept, some give up, totals add up
        const int b = 132, th = 256, it = 4;
        Tally* t; int* gave_up;
        cudaMallocManaged(&t, sizeof(Tally)); std::memset(t, 0, sizeof(Tally));
        cudaMallocManaged(&gave_up, sizeof(int)); *gave_up = 0;
        int32_t* c = zeros(1); int four = 4; cudaMemcpy(c, &four, 4, cudaMemcpyHostToDevice);
        if (kind == 0) bounded<<<b, th>>>(syncc_semaphore::sleeping{zeros(1), zeros(1), zeros(1)}, t, gave_up, it);
        else bounded<<<b, th>>>(syncc_semaphore::spin{c}, t, gave_up, it);
        cudaError_t err = cudaDeviceSynchronize();
        long tries = (long)b * th * it;
        bool ok = err == cudaSuccess && t->most <= 4 && t->inside == 0 && t->total + *gave_up == tries &&
                  t->total > 0 && *gave_up > 0;
        std::printf("%-28s %8ld tries  took %7d  gave up %7d  most inside %d (bound 4)  %s\n",
                    kind == 0 ? "semaphore sleeping try_for" : "semaphore spin try_for", tries, t->total, *gave_up,
                    t->most, ok ? "ok" : (err != cudaSuccess ? cudaGetErrorString(err) : "VIOLATION"));
        failures += !ok;
    }
    // grid barriers, cooperative launches
    int blocks = 0;
    cudaDeviceGetAttribute(&blocks, cudaDevAttrMultiProcessorCount, 0);
    blocks *= 2;
    grid_barrier("barrier grid_atomic", syncc_barrier::grid_atomic{zeros(1), zeros(1)});
    grid_barrier("barrier grid_xf", syncc_barrier::grid_xf{zeros(blocks), zeros(blocks)});
    grid_barrier("barrier grid_hierarchical", syncc_barrier::grid_hierarchical{zeros(blocks), zeros(1), zeros(1)});
    channel_messages();
    rwlock("rwlock counter @thread", syncc_rwlock::counter{zeros(1)});
    rwlock("rwlock ticket @thread", syncc_rwlock::ticket{zeros(1), zeros(1), zeros(1), zeros(1)});
    latches();
    queues();
    std::printf("%s\n", failures ? "FAILED" : "all ok");
    return failures ? 1 : 0;
}
