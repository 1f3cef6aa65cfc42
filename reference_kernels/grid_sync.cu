// Reference: grid-wide synchronization with a cooperative launch and an occupancy-sized grid.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Three phases over the whole array, separated by grid syncs; grid-stride loops so any
// resident grid size works.
extern "C" __global__ void phases(float* x, float* y, int n) {
    cg::grid_group grid = cg::this_grid();
    unsigned long long start = grid.thread_rank(), stride = grid.size();
    for (unsigned long long i = start; i < n; i += stride) x[i] = 2.0f * x[i];
    grid.sync();
    for (unsigned long long i = start; i < n; i += stride) y[i] = x[i] + x[(i + 1) % n];
    grid.sync();
    for (unsigned long long i = start; i < n; i += stride) x[i] = y[i] - y[(i + n - 1) % n];
    __syncthreads();
    grid.sync();
}

__inline__ __device__ float warpSum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__device__ float blockSum(float v) {
    __shared__ float warpSums[32];
    v = warpSum(v);
    int lane = threadIdx.x % 32, wid = threadIdx.x / 32;
    if (lane == 0) warpSums[wid] = v;
    __syncthreads();
    v = (threadIdx.x < blockDim.x / 32) ? warpSums[lane] : 0.0f;
    if (wid == 0) v = warpSum(v);
    __syncthreads();
    return v;
}

// A real global reduction: every block writes its partial sum, the grid syncs, then block 0
// adds the partials (the article's version kept only block 0's own sum).
extern "C" __global__ void globalReduce(const float* in, float* partials, float* out, int n) {
    cg::grid_group grid = cg::this_grid();
    float v = 0.0f;
    for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size()) v += in[i];
    v = blockSum(v);
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
    grid.sync();
    if (blockIdx.x == 0) {
        float s = 0.0f;
        for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) s += partials[i];
        s = blockSum(s);
        if (threadIdx.x == 0) out[0] = s;
    }
}
