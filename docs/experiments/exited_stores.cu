// Evidence for rules/SYN101.md (barriers after exits): threads that store to shared memory and then return before
// a block barrier. Do the threads that stay, after the barrier, read what the exited threads
// stored (the barrier orders only the threads that arrive at it)?
//   nvcc -std=c++17 -arch=sm_90 -o exited_stores exited_stores.cu
//   ./exited_stores <kernel> | list
// Threads t >= n of a block of 128 return after their store; n = 128, 100, 64, 40, 33, 1.
#include <cfloat>
#include <climits>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

constexpr int kBlock = 128;

// Every thread fills its slot, the tail leaves, the rest read a slot across the block.
__global__ void store_exit_read(const int* in, int* out, int n) {
    __shared__ int s[kBlock];
    int t = threadIdx.x;
    s[t] = in[t];
    if (t >= n) return;
    __syncthreads();
    out[t] = s[kBlock - 1 - t];
}

// A minimum tree over the block after the tail left (a reduction library's shape): the
// exited threads' slots hold their sentinel, stored before they left.
__global__ void sentinel_min_tree(const int* in, int* out, int n) {
    __shared__ int s[kBlock];
    int t = threadIdx.x;
    s[t] = INT_MAX;
    if (t >= n) return;
    s[t] = in[t];
    __syncthreads();
    for (int i = kBlock / 2; i > 0; i >>= 1) {
        if (t < i && s[t + i] < s[t]) s[t] = s[t + i];
        __syncthreads();
    }
    out[t] = s[0];
}

// The same stores with a delay in the leaving warps, so that their stores land late if
// leaving does not wait for them.
__global__ void delayed_store_exit_read(const int* in, int* out, int n) {
    __shared__ int s[kBlock];
    int t = threadIdx.x;
    if (t >= n) {
        long long start = clock64();
        while (clock64() - start < 20000) {}
        s[t] = in[t];
        return;
    }
    s[t] = in[t];
    __syncthreads();
    out[t] = s[kBlock - 1 - t];
}

static const char* kKernels[] = {"store_exit_read", "sentinel_min_tree", "delayed_store_exit_read"};

static void expect(const char* name, const int* in, int* want, int n) {
    for (int t = 0; t < n; ++t) {
        if (!strcmp(name, "sentinel_min_tree")) {
            int m = INT_MAX;
            for (int j = 0; j < n; ++j) m = in[j] < m ? in[j] : m;
            want[t] = m;
        } else {
            want[t] = in[kBlock - 1 - t];
        }
    }
}

int main(int argc, char** argv) {
    if (argc < 2 || !strcmp(argv[1], "list")) {
        for (const char* k : kKernels) printf("%s\n", k);
        return 0;
    }
    setvbuf(stdout, nullptr, _IOLBF, 0);
    const char* name = argv[1];
    int h_in[kBlock], h_out[kBlock], want[kBlock];
    srand(12345);
    for (int i = 0; i < kBlock; ++i) h_in[i] = 1 + rand() % 1000;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    const int ns[] = {128, 100, 64, 40, 33, 1};
    int total_bad = 0;
    for (int rep = 0; rep < 200; ++rep) {
        for (int n : ns) {
            cudaMemset(d_out, 0xff, sizeof h_out);
            if (!strcmp(name, "store_exit_read")) store_exit_read<<<1, kBlock>>>(d_in, d_out, n);
            else if (!strcmp(name, "sentinel_min_tree")) sentinel_min_tree<<<1, kBlock>>>(d_in, d_out, n);
            else if (!strcmp(name, "delayed_store_exit_read"))
                delayed_store_exit_read<<<1, kBlock>>>(d_in, d_out, n);
            else { printf("unknown kernel %s\n", name); return 2; }
            cudaError_t e = cudaDeviceSynchronize();
            if (e != cudaSuccess) { printf("%s n=%d error=%s\n", name, n, cudaGetErrorString(e)); return 1; }
            cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
            expect(name, h_in, want, n);
            int bad = 0;
            for (int t = 0; t < n; ++t) bad += h_out[t] != want[t];
            if (rep == 0 || bad) printf("%-26s n=%3d rep=%3d mismatches=%d/%d\n", name, n, rep, bad, n);
            total_bad += bad;
            if (argc > 2) break;  // under a sanitizer: one launch per n
        }
        if (argc > 2) break;
    }
    printf("%s total_mismatches=%d\n", name, total_bad);
    return 0;
}
