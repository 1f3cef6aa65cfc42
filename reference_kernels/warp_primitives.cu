// Reference: warp primitives of the lecture, each working with every lane present.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Stream compaction per warp: __ballot_sync finds the positive lanes, __popc of the lanes
// below gives each one its slot; __any_sync/__all_sync summarize the warp.
extern "C" __global__ void compactWarp(const float* in, float* out, int* counts, int* flags, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? in[i] : -1.0f;
    bool keep = v > 0.0f;
    unsigned ballot = __ballot_sync(0xffffffff, keep);
    int any = __any_sync(0xffffffff, keep);
    int all = __all_sync(0xffffffff, keep);
    int lane = threadIdx.x % 32;
    int warp = i / 32;
    int slot = __popc(ballot & ((1u << lane) - 1u));
    if (keep) out[warp * 32 + slot] = v;
    if (lane == 0) {
        counts[warp] = __popc(ballot);
        flags[warp] = any + 2 * all;
    }
}

// Integer warp sum in one instruction (sm_80+).
extern "C" __global__ void warpSumInt(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    int s = __reduce_add_sync(0xffffffff, v);
    if (threadIdx.x % 32 == 0) out[i / 32] = s;
}

// Butterfly: after five __shfl_xor_sync steps every lane holds the warp's sum.
extern "C" __global__ void butterfly(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? in[i] : 0.0f;
    for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(0xffffffff, v, mask);
    if (i < n) out[i] = v;
}

// coalesced_threads() inside divergent code: the active lanes agree on one atomic per group.
extern "C" __global__ void compactCoalesced(const float* in, float* out, int* counter, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0.0f) {
        cg::coalesced_group active = cg::coalesced_threads();
        int base = 0;
        if (active.thread_rank() == 0) base = atomicAdd(counter, (int)active.size());
        base = active.shfl(base, 0);
        out[base + active.thread_rank()] = in[i];
    }
}
