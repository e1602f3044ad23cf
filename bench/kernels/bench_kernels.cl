// Device code of the kernel benchmarks (bench/kernels), read at run time and built twice on
// the same device: through infinirtModuleLoad and with clBuildProgram.

// Does nothing: what a launch costs is all that is left to measure.
kernel void empty(void) {}
