/* hip_graph.cpp - the capture and graph adapters of the vendor table: hipGraph_t and
 * hipGraphExec_t calls, converted types only (the capture rules are gpu_common's, gpu_graph.cpp). */
#include "hip_backend.h"

namespace infinirt::hip {

/* infinirtStreamCaptureMode_t and hipStreamCaptureMode share their values. */
NativeStatus beginCapture(void *s, int mode) {
    return hip().hipStreamBeginCapture(streamOf(s), static_cast<hipStreamCaptureMode>(mode));
}
NativeStatus endCapture(void *s, void **g) {
    return hip().hipStreamEndCapture(streamOf(s), reinterpret_cast<hipGraph_t *>(g));
}
NativeStatus graphDestroy(void *g) { return hip().hipGraphDestroy(static_cast<hipGraph_t>(g)); }
NativeStatus graphInstantiate(void **exec, void *g) {
    return hip().hipGraphInstantiateWithFlags(reinterpret_cast<hipGraphExec_t *>(exec), static_cast<hipGraph_t>(g), 0);
}
NativeStatus graphExecDestroy(void *exec) { return hip().hipGraphExecDestroy(static_cast<hipGraphExec_t>(exec)); }
NativeStatus graphLaunch(void *exec, void *s) {
    return hip().hipGraphLaunch(static_cast<hipGraphExec_t>(exec), streamOf(s));
}

} // namespace infinirt::hip
