// The empty kernel of infinirt-bench's launch latency, for OpenCL (the tool's built-in copy is what
// it loads when the OpenCL anchor is there; this one is the module file's).
kernel void empty(void) {}
