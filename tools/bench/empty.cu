// The empty kernel of infinirt-bench's launch latency, for cuda (the tool's built-in PTX is what it
// loads when the CUDA anchor is there; this one is the module file's).
extern "C" __global__ void empty() {}
