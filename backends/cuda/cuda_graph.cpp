/* cuda_graph.cpp - the capture and graph adapters of the vendor table: CUgraph and CUgraphExec
 * calls, converted types only (the capture rules are gpu_common's, gpu_graph.cpp). */
#include "cuda_backend.h"

namespace infinirt::cuda {

/* infinirtStreamCaptureMode_t and CUstreamCaptureMode share their values. */
NativeStatus beginCapture(void *s, int mode) {
    return driver().cuStreamBeginCapture(streamOf(s), static_cast<CUstreamCaptureMode>(mode));
}
NativeStatus endCapture(void *s, void **g) {
    return driver().cuStreamEndCapture(streamOf(s), reinterpret_cast<CUgraph *>(g));
}
NativeStatus graphDestroy(void *g) { return driver().cuGraphDestroy(static_cast<CUgraph>(g)); }
NativeStatus graphInstantiate(void **exec, void *g) {
    return driver().cuGraphInstantiateWithFlags(reinterpret_cast<CUgraphExec *>(exec), static_cast<CUgraph>(g), 0);
}
NativeStatus graphExecDestroy(void *exec) { return driver().cuGraphExecDestroy(static_cast<CUgraphExec>(exec)); }
NativeStatus graphLaunch(void *exec, void *s) {
    return driver().cuGraphLaunch(static_cast<CUgraphExec>(exec), streamOf(s));
}

} // namespace infinirt::cuda
