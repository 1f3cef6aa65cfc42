// Evidence for the exited-threads barrier decision (rules/SYN101.md): what a block barrier
// does when some threads of the block have returned before it.
// Build and run: nvcc -arch=sm_90 -o exited exited_threads.cu && ./exited
// Then: compute-sanitizer --tool synccheck ./exited; compute-sanitizer --tool racecheck ./exited
#include <cstdio>
#include <cuda_runtime.h>

// Threads at or past n return first; the others meet at the barrier and read what the
// other remaining threads wrote before it.
__global__ void exit_then_barrier(const int* in, int* out, int n) {
    __shared__ int s[128];
    int t = threadIdx.x;
    if (t >= n) return;
    s[t] = in[t] * 2;
    __syncthreads();
    out[t] = s[n - 1 - t];
}

// The same work with a barrier that only the remaining threads reach inside a branch.
__global__ void barrier_in_branch(const int* in, int* out, int n) {
    __shared__ int s[128];
    int t = threadIdx.x;
    if (t < n) {
        s[t] = in[t] * 2;
        __syncthreads();
        out[t] = s[n - 1 - t];
    }
}

// Exited threads, then a loop of barriers: do the remaining threads keep their phases?
__global__ void exit_then_loop(const int* in, int* out, int n, int rounds) {
    __shared__ int s[128];
    int t = threadIdx.x;
    if (t >= n) return;
    int v = in[t];
    for (int r = 0; r < rounds; ++r) {
        s[t] = v;
        __syncthreads();
        v = s[(t + 1) % n] + 1;
        __syncthreads();
    }
    out[t] = v;
}

static int check(const char* name, const int* got, const int* want, int n) {
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += got[i] != want[i];
    printf("%-20s n=%3d mismatches=%d\n", name, n, bad);
    return bad;
}

int main() {
    const int block = 128;
    int h_in[block], h_out[block], want[block];
    for (int i = 0; i < block; ++i) h_in[i] = i + 1;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    int failures = 0;
    for (int n : {128, 100, 64, 33, 1}) {
        for (int i = 0; i < n; ++i) want[i] = h_in[n - 1 - i] * 2;
        cudaMemset(d_out, 0, sizeof h_out);
        exit_then_barrier<<<1, block>>>(d_in, d_out, n);
        cudaError_t e = cudaDeviceSynchronize();
        cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
        failures += check("exit_then_barrier", h_out, want, n) + (e != cudaSuccess);
        cudaMemset(d_out, 0, sizeof h_out);
        barrier_in_branch<<<1, block>>>(d_in, d_out, n);
        e = cudaDeviceSynchronize();
        cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
        failures += check("barrier_in_branch", h_out, want, n) + (e != cudaSuccess);
        const int rounds = 5;
        int cur[block];
        for (int i = 0; i < n; ++i) cur[i] = h_in[i];
        for (int r = 0; r < rounds; ++r) {
            int next[block];
            for (int i = 0; i < n; ++i) next[i] = cur[(i + 1) % n] + 1;
            for (int i = 0; i < n; ++i) cur[i] = next[i];
        }
        cudaMemset(d_out, 0, sizeof h_out);
        exit_then_loop<<<1, block>>>(d_in, d_out, n, rounds);
        e = cudaDeviceSynchronize();
        cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
        failures += check("exit_then_loop", h_out, cur, n) + (e != cudaSuccess);
    }
    printf("failures=%d\n", failures);
    return 0;
}
