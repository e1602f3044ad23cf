/* cuda_graph.cpp - the capture and graph converters of the vendor table: CUgraph and CUgraphExec
 * calls, converted types only (the capture rules are gpu_common's, gpu_graph.cpp). */
#include "cuda_backend.h"

namespace infinirt::cuda {

/* infinirtStreamCaptureMode_t and CUstreamCaptureMode share their values. */
NativeStatus nativeBeginCapture(void *s, int mode) {
    return nativeApi().cuStreamBeginCapture(streamOf(s), static_cast<CUstreamCaptureMode>(mode));
}
NativeStatus nativeEndCapture(void *s, void **g) {
    return nativeApi().cuStreamEndCapture(streamOf(s), reinterpret_cast<CUgraph *>(g));
}
NativeStatus nativeGraphDestroy(void *g) { return nativeApi().cuGraphDestroy(static_cast<CUgraph>(g)); }
NativeStatus nativeGraphInstantiate(void **exec, void *g) {
    return nativeApi().cuGraphInstantiateWithFlags(reinterpret_cast<CUgraphExec *>(exec), static_cast<CUgraph>(g), 0);
}
NativeStatus nativeGraphExecDestroy(void *exec) { return nativeApi().cuGraphExecDestroy(static_cast<CUgraphExec>(exec)); }
NativeStatus nativeGraphLaunch(void *exec, void *s) {
    return nativeApi().cuGraphLaunch(static_cast<CUgraphExec>(exec), streamOf(s));
}

} // namespace infinirt::cuda
