// Evidence for rules/SYN101.md (barriers after exits) and rules/SYN201.md: what warp collectives, counting block
// barriers and named barriers do when some threads of the block have returned before them.
// One kernel per run, chosen by name, so that a hang loses only that run:
//   nvcc -std=c++17 -arch=sm_90 -o exited_warp exited_warp_collectives.cu
//   ./exited_warp <kernel>          (prints one line per number of remaining threads)
//   ./exited_warp list              (prints the kernel names)
// Threads t >= n of a block of 128 return first; n = 128 (no exit), 100, 64, 40, 33, 1.
// n = 100 cuts warp 3 (lanes 4..31 leave), 40 cuts warp 1, 33 leaves one lane of warp 1.
// Each remaining thread writes what it computed; the host compares with what the code means
// when only the remaining threads take part (exited lanes contribute nothing).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;
constexpr unsigned kFull = 0xffffffffu;
constexpr int kBlock = 128;

// Butterfly sum over the warp with a full mask after the exit.
__global__ void shfl_xor_sum(const int* in, int* out, int n) {
    int t = threadIdx.x;
    if (t >= n) return;
    int v = in[t];
    for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(kFull, v, off);
    out[t] = v;
}

// The same sum with the value loaded before the exit (an exited lane's register held it).
__global__ void shfl_xor_sum_loaded_before_exit(const int* in, int* out, int n) {
    int t = threadIdx.x;
    int v = in[t];
    if (t >= n) return;
    for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(kFull, v, off);
    out[t] = v;
}

// cooperative_groups reduction over a 32-thread tile (a max), as 3DGS backward kernels do.
__global__ void tile_reduce_max(const int* in, int* out, int n) {
    cg::thread_block block = cg::this_thread_block();
    int t = threadIdx.x;
    if (t >= n) return;
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    out[t] = cg::reduce(warp, in[t], cg::greater<int>());
}

// A full-mask ballot: how many lanes does it count?
__global__ void ballot_count(const int* in, int* out, int n) {
    int t = threadIdx.x;
    if (t >= n) return;
    out[t] = __popc(__ballot_sync(kFull, in[t] > 0));
}

// __syncwarp() with the full mask, then a neighbour's value through shared memory (only
// neighbours that stayed are read: (t ^ 1) < n).
__global__ void syncwarp_exchange(const int* in, int* out, int n) {
    __shared__ int s[kBlock];
    int t = threadIdx.x;
    if (t >= n) return;
    s[t] = in[t];
    __syncwarp();
    out[t] = (t ^ 1) < n ? s[t ^ 1] : s[t];
}

// Counting barrier: __syncthreads_count(1) counts the threads that reached it.
__global__ void syncthreads_count(const int* in, int* out, int n) {
    int t = threadIdx.x;
    if (t >= n) return;
    out[t] = __syncthreads_count(in[t] > 0);
}

// A named barrier with an explicit thread count of the whole block, after the exit.
__global__ void named_barrier_full_count(const int* in, int* out, int n) {
    __shared__ int s[kBlock];
    int t = threadIdx.x;
    if (t >= n) return;
    s[t] = in[t];
    asm volatile("bar.sync 1, %0;" ::"r"(kBlock) : "memory");
    out[t] = s[n - 1 - t];
}

// The shape of a tile-raster backward kernel: a 2-D block, threads outside the image leave,
// a tile reduction, then batches loaded between two block barriers, and per item a warp vote,
// a warp sum and one atomic per warp. Launched as one 16x8 block; n is the image width in
// pixels, so columns >= n leave.
__global__ void raster_backward_shape(const int* in, int* out, int n) {
    cg::thread_block block = cg::this_thread_block();
    __shared__ int batch[kBlock];
    int col = threadIdx.x, row = threadIdx.y;
    int rank = row * blockDim.x + col;
    if (col >= n) return;
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int last = cg::reduce(warp, in[rank] % 7, cg::greater<int>());
    for (int b = 0; b < 3; ++b) {
        block.sync();
        batch[rank] = in[(rank + 17 * b) % kBlock];
        block.sync();
        for (int k = 0; k <= last; ++k) {
            if (k % 16 >= n) continue;  // slot of a thread that left: never written
            bool valid = (batch[k] + col) % 3 != 0;
            if (!warp.any(valid)) continue;
            int contribution = valid ? batch[k] : 0;
            for (int off = 16; off > 0; off /= 2)
                contribution += warp.shfl_xor(contribution, off);
            if (warp.thread_rank() == 0) atomicAdd(&out[rank], contribution);
        }
    }
}

// ---- host: what each kernel means when only the remaining threads take part ----
static int lanes_left(int t, int n) {  // remaining lanes of t's warp
    int lo = t / 32 * 32, hi = lo + 32 < n ? lo + 32 : n;
    return hi - lo;
}
static int warp_sum(const int* in, int t, int n) {
    int lo = t / 32 * 32, s = 0;
    for (int i = lo; i < lo + 32 && i < n; ++i) s += in[i];
    return s;
}
static int warp_max(const int* in, int t, int n) {
    int lo = t / 32 * 32, m = -1;
    for (int i = lo; i < lo + 32 && i < n; ++i) m = in[i] > m ? in[i] : m;
    return m;
}
static void expect_flat(const char* name, const int* in, int* want, int n) {
    for (int t = 0; t < n; ++t) {
        if (!strcmp(name, "shfl_xor_sum") || !strcmp(name, "shfl_xor_sum_loaded_before_exit"))
            want[t] = warp_sum(in, t, n);
        else if (!strcmp(name, "tile_reduce_max")) want[t] = warp_max(in, t, n);
        else if (!strcmp(name, "ballot_count")) want[t] = lanes_left(t, n);
        else if (!strcmp(name, "syncwarp_exchange")) want[t] = (t ^ 1) < n ? in[t ^ 1] : in[t];
        else if (!strcmp(name, "syncthreads_count")) want[t] = n;
        else if (!strcmp(name, "named_barrier_full_count")) want[t] = in[n - 1 - t];
    }
}
static void expect_raster(const int* in, int* want, int width) {
    // One 16x8 block: warp w holds rows 2w and 2w+1; columns >= width left.
    memset(want, 0, sizeof(int) * kBlock);
    int batch[kBlock];
    for (int w = 0; w < kBlock / 32; ++w) {
        int last = -1;
        for (int r = 0; r < 32; ++r) {
            int rank = w * 32 + r, col = rank % 16;
            if (col < width) last = in[rank] % 7 > last ? in[rank] % 7 : last;
        }
        if (last < 0) continue;
        for (int b = 0; b < 3; ++b) {
            for (int rank = 0; rank < kBlock; ++rank) batch[rank] = in[(rank + 17 * b) % kBlock];
            for (int k = 0; k <= last; ++k) {
                if (k % 16 >= width) continue;
                int any = 0, sum = 0;
                for (int r = 0; r < 32; ++r) {
                    int rank = w * 32 + r, col = rank % 16;
                    if (col >= width) continue;
                    bool valid = (batch[k] + col) % 3 != 0;
                    any |= valid;
                    sum += valid ? batch[k] : 0;
                }
                int lane0 = w * 32;  // column 0 always stays (width >= 1)
                if (any) want[lane0] += sum;
            }
        }
    }
}

static const char* kKernels[] = {"shfl_xor_sum", "shfl_xor_sum_loaded_before_exit",
                                 "tile_reduce_max", "ballot_count", "syncwarp_exchange",
                                 "syncthreads_count", "named_barrier_full_count",
                                 "raster_backward_shape"};

int main(int argc, char** argv) {
    if (argc < 2 || !strcmp(argv[1], "list")) {
        for (const char* k : kKernels) printf("%s\n", k);
        return 0;
    }
    setvbuf(stdout, nullptr, _IOLBF, 0);  // a hang is killed: keep the lines printed before it
    const char* name = argv[1];
    int h_in[kBlock], h_out[kBlock], want[kBlock];
    srand(12345);
    for (int i = 0; i < kBlock; ++i) h_in[i] = 1 + rand() % 1000;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    bool raster = !strcmp(name, "raster_backward_shape");
    int total_bad = 0;
    const int flat_ns[] = {128, 100, 64, 40, 33, 1};
    const int raster_widths[] = {16, 12, 8, 5, 1};
    int count = raster ? 5 : 6;
    for (int i = 0; i < count; ++i) {
        int n = raster ? raster_widths[i] : flat_ns[i];
        cudaMemset(d_out, raster ? 0 : 0xff, sizeof h_out);
        if (raster) raster_backward_shape<<<1, dim3(16, 8)>>>(d_in, d_out, n);
        else if (!strcmp(name, "shfl_xor_sum")) shfl_xor_sum<<<1, kBlock>>>(d_in, d_out, n);
        else if (!strcmp(name, "shfl_xor_sum_loaded_before_exit"))
            shfl_xor_sum_loaded_before_exit<<<1, kBlock>>>(d_in, d_out, n);
        else if (!strcmp(name, "tile_reduce_max")) tile_reduce_max<<<1, kBlock>>>(d_in, d_out, n);
        else if (!strcmp(name, "ballot_count")) ballot_count<<<1, kBlock>>>(d_in, d_out, n);
        else if (!strcmp(name, "syncwarp_exchange")) syncwarp_exchange<<<1, kBlock>>>(d_in, d_out, n);
        else if (!strcmp(name, "syncthreads_count")) syncthreads_count<<<1, kBlock>>>(d_in, d_out, n);
        else if (!strcmp(name, "named_barrier_full_count"))
            named_barrier_full_count<<<1, kBlock>>>(d_in, d_out, n);
        else { printf("unknown kernel %s\n", name); return 2; }
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            printf("%-32s n=%3d error=%s\n", name, n, cudaGetErrorString(e));
            return 1;
        }
        cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
        int bad = 0, first = -1, checked = 0;
        if (raster) {
            expect_raster(h_in, want, n);
            for (int w = 0; w < kBlock / 32; ++w) {
                ++checked;
                if (h_out[w * 32] != want[w * 32]) { ++bad; if (first < 0) first = w * 32; }
            }
        } else {
            expect_flat(name, h_in, want, n);
            for (int t = 0; t < n; ++t) {
                ++checked;
                if (h_out[t] != want[t]) { ++bad; if (first < 0) first = t; }
            }
        }
        total_bad += bad;
        if (first >= 0)
            printf("%-32s n=%3d mismatches=%d/%d (thread %d: got %d, meant %d)\n", name, n, bad,
                   checked, first, h_out[first], want[first]);
        else
            printf("%-32s n=%3d mismatches=0/%d\n", name, n, checked);
    }
    printf("%s total_mismatches=%d\n", name, total_bad);
    return 0;
}
