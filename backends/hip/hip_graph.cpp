/* hip_graph.cpp - the capture and graph converters of the vendor table: hipGraph_t and
 * hipGraphExec_t calls, converted types only (the capture rules are gpu_common's, gpu_graph.cpp). */
#include "hip_backend.h"

namespace infinirt::hip {

/* infinirtStreamCaptureMode_t and hipStreamCaptureMode share their values. */
NativeStatus nativeBeginCapture(void *s, int mode) {
    return nativeApi().hipStreamBeginCapture(streamOf(s), static_cast<hipStreamCaptureMode>(mode));
}
NativeStatus nativeEndCapture(void *s, void **g) {
    return nativeApi().hipStreamEndCapture(streamOf(s), reinterpret_cast<hipGraph_t *>(g));
}
NativeStatus nativeGraphDestroy(void *g) { return nativeApi().hipGraphDestroy(static_cast<hipGraph_t>(g)); }
NativeStatus nativeGraphInstantiate(void **exec, void *g) {
    return nativeApi().hipGraphInstantiateWithFlags(reinterpret_cast<hipGraphExec_t *>(exec), static_cast<hipGraph_t>(g), 0);
}
NativeStatus nativeGraphExecDestroy(void *exec) { return nativeApi().hipGraphExecDestroy(static_cast<hipGraphExec_t>(exec)); }
NativeStatus nativeGraphLaunch(void *exec, void *s) {
    return nativeApi().hipGraphLaunch(static_cast<hipGraphExec_t>(exec), streamOf(s));
}

} // namespace infinirt::hip
