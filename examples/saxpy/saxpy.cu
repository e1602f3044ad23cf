// saxpy for cuda: y[i] = a * x[i] + y[i]. extern "C" keeps the name unmangled.
extern "C" __global__ void saxpy(float *y, const float *x, float a, unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
