// A library's channel and queue of records, vended as CUDA C++ (tests/app/test_record_channels.py
// builds recs.cuh from `channel box[32]: Task in global @thread` and `queue work(16): Task in global
// @thread`): 32 producer threads put a record each into the channel and the queue, 32 consumer
// threads of another warp take them; the host checks that every record arrived whole.
#include "recs.cuh"
#include <cstdio>

using syncc_recs::Task;

__global__ void init(syncc_recs::box b, syncc_recs::work w) { b.init(); w.init(); }

__global__ void exchange(syncc_recs::box b, syncc_recs::work w, Task* from_box, Task* from_queue) {
    int t = threadIdx.x;
    if (t < 32) {
        b.put(t, Task{t, t * 0.5f});
        w.put(Task{100 + t, t * 0.25f});
    } else {
        from_box[t - 32] = b.get(63 - t);
        from_queue[t - 32] = w.get();
    }
}

template <class T> T* device(size_t n) {
    T* p = nullptr;
    cudaMalloc(&p, n * sizeof(T));
    return p;
}

int main() {
    syncc_recs::box b{device<Task>(32), device<int32_t>(32)};
    syncc_recs::work w{device<Task>(16), device<int32_t>(2), device<int32_t>(16), device<int32_t>(1)};
    Task* from_box = device<Task>(32);
    Task* from_queue = device<Task>(32);
    init<<<1, 64>>>(b, w);
    exchange<<<1, 64>>>(b, w, from_box, from_queue);
    if (cudaDeviceSynchronize() != cudaSuccess) { printf("launch failed\n"); return 1; }
    Task got_box[32], got_queue[32];
    cudaMemcpy(got_box, from_box, sizeof got_box, cudaMemcpyDeviceToHost);
    cudaMemcpy(got_queue, from_queue, sizeof got_queue, cudaMemcpyDeviceToHost);
    int seen[32] = {0};
    for (int i = 0; i < 32; i++) {
        int slot = 31 - i;
        if (got_box[i].id != slot || got_box[i].w != slot * 0.5f) { printf("box %d: %d %f\n", i, got_box[i].id, got_box[i].w); return 1; }
        int id = got_queue[i].id - 100;
        if (id < 0 || id >= 32 || got_queue[i].w != id * 0.25f || seen[id]++) { printf("queue %d: %d %f\n", i, got_queue[i].id, got_queue[i].w); return 1; }
    }
    printf("ok\n");
    return 0;
}
