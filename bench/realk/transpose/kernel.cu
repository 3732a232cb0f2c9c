#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

// output (cols x rows) = input (rows x cols) transposed, through a padded shared tile.
__global__ void transpose_kernel(const float* input, float* output, int rows, int cols) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = input[(size_t)(y + j) * cols + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < rows && y + j < cols) output[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}

extern "C" void solve(const float* input, float* output, int rows, int cols) {
    dim3 block(TILE_DIM, BLOCK_ROWS);
    dim3 grid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
    transpose_kernel<<<grid, block>>>(input, output, rows, cols);
    cudaDeviceSynchronize();
}
