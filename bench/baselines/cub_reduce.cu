// `syncc bench gpu`'s yardsticks for the float reduction and the scan (syncc/bench/gpu_reduction.py):
// CUB's DeviceReduce::Sum and DeviceScan::ExclusiveSum of n f32, and a device-to-device copy of
// the same bytes, each timed with CUDA events around the call alone (the temporary storage is
// allocated before), median of `repeats` after one warm-up. Built by nvcc as an executable:
//     cub_reduce N REPEATS SEED   → "reduce_ms R scan_ms S copy_ms C sum V host_check OK|BAD"
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); std::exit(2); } } while (0)

template <class F>
static double median_ms(int repeats, F call) {
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<float> times;
    for (int k = 0; k <= repeats; ++k) {
        CHECK(cudaEventRecord(a));
        call();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (k > 0) times.push_back(ms);         // the first is the warm-up
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

int main(int argc, char** argv) {
    if (argc != 4) { std::fprintf(stderr, "usage: cub_reduce N REPEATS SEED\n"); return 2; }
    const long n = std::atol(argv[1]);
    const int repeats = std::atoi(argv[2]);
    std::mt19937 rng(std::atoi(argv[3]));
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> host(n);
    double want = 0;
    for (long i = 0; i < n; ++i) { host[i] = u(rng); want += host[i]; }
    float *x, *y, *sum;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMalloc(&sum, sizeof(float)));
    CHECK(cudaMemcpy(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    size_t reduce_bytes = 0, scan_bytes = 0;
    CHECK(cub::DeviceReduce::Sum(nullptr, reduce_bytes, x, sum, n));
    CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, x, y, n));
    void* temp;
    CHECK(cudaMalloc(&temp, std::max(reduce_bytes, scan_bytes)));
    double reduce = median_ms(repeats, [&] { cub::DeviceReduce::Sum(temp, reduce_bytes, x, sum, n); });
    double scan = median_ms(repeats, [&] { cub::DeviceScan::ExclusiveSum(temp, scan_bytes, x, y, n); });
    double copy = median_ms(repeats, [&] { cudaMemcpyAsync(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice); });
    float got = 0;
    CHECK(cudaMemcpy(&got, sum, sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = std::abs(got - want) <= 1e-3 * std::sqrt((double)n);     // f32 rounding, summed in some order
    std::printf("reduce_ms %.6f scan_ms %.6f copy_ms %.6f sum %.6f host_check %s\n", reduce, scan, copy, got,
                ok ? "OK" : "BAD");
    return ok ? 0 : 1;
}
