// `syncc bench gpu`'s yardstick for the scan (syncc/bench/gpu_scan.py): CUB's
// DeviceScan::ExclusiveSum of n i32 or f32 and a device-to-device copy of the same bytes, each timed
// as LAUNCHES calls back to back between CUDA events (the temporary storage is allocated before;
// CUB's own tile-status initialization runs inside each call), median of `repeats` batches after
// one warm-up. The scan is checked against the host's. Built by nvcc as an executable:
//     cub_scan i32|f32 N REPEATS LAUNCHES SEED   → "scan_ms S copy_ms C host_check OK|BAD"
#include <cub/device/device_scan.cuh>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); std::exit(2); } } while (0)

// The median over `repeats` batches (after one warm-up batch) of the time a call, a batch being
// `launches` calls queued back to back between two events.
template <class F>
static double median_ms(int repeats, int launches, F call) {
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<float> times;
    for (int k = 0; k <= repeats; ++k) {
        CHECK(cudaEventRecord(a));
        for (int i = 0; i < launches; ++i) call();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaGetLastError());
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (k > 0) times.push_back(ms / launches);         // the first batch is the warm-up
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

template <class T>
static int run(long n, int repeats, int launches, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<T> host(n);
    for (long i = 0; i < n; ++i)
        host[i] = std::is_integral<T>::value ? T(long(rng() % 100) - 50)
                                             : T(std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng));
    T *x, *y;
    CHECK(cudaMalloc(&x, n * sizeof(T)));
    CHECK(cudaMalloc(&y, n * sizeof(T)));
    CHECK(cudaMemcpy(x, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    size_t bytes = 0;
    CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, x, y, n));
    void* temp;
    CHECK(cudaMalloc(&temp, bytes));
    double scan = median_ms(repeats, launches, [&] { cub::DeviceScan::ExclusiveSum(temp, bytes, x, y, n); });
    std::vector<T> got(n);
    CHECK(cudaMemcpy(got.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
    double copy = median_ms(repeats, launches, [&] { cudaMemcpyAsync(y, x, n * sizeof(T), cudaMemcpyDeviceToDevice); });
    bool ok = true;
    double run = 0;
    for (long i = 0; i < n && ok; ++i) {      // f32: within the rounding of a sum of i terms of at most 1
        ok = std::is_integral<T>::value ? got[i] == T(run) : std::abs(double(got[i]) - run) <= 1e-5 * (i + 1);
        run += double(host[i]);
    }
    std::printf("scan_ms %.6f copy_ms %.6f host_check %s\n", scan, copy, ok ? "OK" : "BAD");
    return ok ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc != 6) { std::fprintf(stderr, "usage: cub_scan i32|f32 N REPEATS LAUNCHES SEED\n"); return 2; }
    const long n = std::atol(argv[2]);
    const int repeats = std::atoi(argv[3]), launches = std::atoi(argv[4]);
    const unsigned seed = std::atoi(argv[5]);
    return std::strcmp(argv[1], "i32") == 0 ? run<int>(n, repeats, launches, seed)
                                            : run<float>(n, repeats, launches, seed);
}
