"""Generates realistic CUDA files for the benchmark: each is a mix of the kernel shapes real
code has (tiled stencils, reductions, warp shuffles, scans, cooperative phases, host
launches), repeated to reach a target size."""

from __future__ import annotations

import random

HEADER = """#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
namespace cg = cooperative_groups;

__inline__ __device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}
"""

TEMPLATES = [
"""
__global__ void stencil_{i}(const float* in, float* out, int n, float w) {{
    __shared__ float tile[{B} + 2];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x + 1;
    tile[t] = (g < n) ? in[g] : 0.0f;
    if (threadIdx.x == 0) tile[0] = (g > 0 && g - 1 < n) ? in[g - 1] : 0.0f;
    if (threadIdx.x == blockDim.x - 1) tile[t + 1] = (g + 1 < n) ? in[g + 1] : 0.0f;
    __syncthreads();
    float acc = 0.0f;
    for (int k = -1; k <= 1; ++k) acc += w * tile[t + k];
    if (g < n) out[g] = acc + {c}.0f;
}}
""",
"""
__global__ void reduce_{i}(const float* in, float* out, int n) {{
    __shared__ float s[{B}];
    unsigned tid = threadIdx.x;
    float v = 0.0f;
    for (int g = blockIdx.x * blockDim.x + tid; g < n; g += gridDim.x * blockDim.x) v += in[g] * {c}.0f;
    s[tid] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 32; stride >>= 1) {{
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }}
    if (tid < 32) {{
        v = s[tid] + s[tid + 32];
        v = warp_sum(v);
        if (tid == 0) out[blockIdx.x] = v;
    }}
}}
""",
"""
__global__ void scan_{i}(float* data, int n) {{
    __shared__ float s[{B}];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    s[t] = (g < n) ? data[g] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < {B}; offset *= 2) {{
        float add = (t >= offset) ? s[t - offset] : 0.0f;
        __syncthreads();
        s[t] += add;
        __syncthreads();
    }}
    if (g < n) data[g] = s[t] * {c}.0f;
}}
""",
"""
__global__ void vote_{i}(const int* in, int* out, int n) {{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (g < n) ? in[g] : 0;
    unsigned m = __ballot_sync(0xffffffff, v > {k});
    int lane = threadIdx.x % 32;
    if (v > {k}) out[g] = __popc(m & ((1u << lane) - 1u));
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    int total = cg::reduce(warp, v, cg::plus<int>());
    if (warp.thread_rank() == 0 && g < n) out[n + g / 32] = total;
}}
""",
"""
__global__ void phases_{i}(float* x, float* y, int n) {{
    cg::grid_group grid = cg::this_grid();
    for (unsigned long long g = grid.thread_rank(); g < n; g += grid.size()) x[g] *= {c}.0f;
    grid.sync();
    for (unsigned long long g = grid.thread_rank(); g < n; g += grid.size()) y[g] = x[g] + x[(g + 1) % n];
    grid.sync();
}}

int launch_phases_{i}(float* x, float* y, int n) {{
    int supported = 0, perSm = 0, sms = 0;
    cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, 0);
    if (!supported) return -1;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, phases_{i}, {B}, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    void* args[] = {{&x, &y, &n}};
    cudaError_t err = cudaLaunchCooperativeKernel((void*)phases_{i}, dim3(perSm * sms), dim3({B}), args, 0, 0);
    return err == cudaSuccess ? 0 : 1;
}}
""",
"""
#define TILE_{i} 16
__global__ void matmul_{i}(const float* A, const float* B, float* C, int n) {{
    __shared__ float As[TILE_{i}][TILE_{i}];
    __shared__ float Bs[TILE_{i}][TILE_{i}];
    int row = blockIdx.y * TILE_{i} + threadIdx.y;
    int col = blockIdx.x * TILE_{i} + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < n / TILE_{i}; ++t) {{
        As[threadIdx.y][threadIdx.x] = A[row * n + t * TILE_{i} + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t * TILE_{i} + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE_{i}; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }}
    if (row < n && col < n) C[row * n + col] = acc;
}}

void launch_matmul_{i}(const float* A, const float* B, float* C, int n) {{
    dim3 block(TILE_{i}, TILE_{i});
    dim3 grid((n + TILE_{i} - 1) / TILE_{i}, (n + TILE_{i} - 1) / TILE_{i});
    matmul_{i}<<<grid, block>>>(A, B, C, n);
    printf("%s\\n", cudaGetErrorString(cudaGetLastError()));
}}
""",
]


def generate(lines: int, seed: int) -> str:
    rng = random.Random(seed)
    parts = [HEADER]
    total = HEADER.count("\n")
    i = 0
    while total < lines:
        tmpl = TEMPLATES[i % len(TEMPLATES)]
        text = tmpl.format(i=i, B=rng.choice([128, 256, 512]), c=rng.randint(1, 9), k=rng.randint(0, 5))
        parts.append(text)
        total += text.count("\n")
        i += 1
    return "".join(parts)
