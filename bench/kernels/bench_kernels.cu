// Device code of the kernel benchmarks (bench/kernels), compiled to PTX by nvcc at build time.
// The same image is loaded twice: through infinirtModuleLoad and with cuModuleLoadData.

// Does nothing: what a launch costs is all that is left to measure.
extern "C" __global__ void empty(void) {}
