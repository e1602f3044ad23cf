// A cpu plugin built without Gloo (libgloo-dev was not found, or INFINIRT_WITH_GLOO=OFF): ranks on
// several hosts are refused with the reason.
#include "cpu_backend.h"

namespace infiniccl::cpu {

struct GlooTransport {};

infiniStatus_t glooCommInit(Comm &c, const infinicclPluginRendezvous_t &) {
    return fail(INFINI_STATUS_BACKEND_UNAVAILABLE,
                "rank %d of %d: the ranks are not all on one host (or INFINICCL_CPU_TRANSPORT=gloo), and this cpu "
                "plugin was built without Gloo (install libgloo-dev and rebuild; INFINIRT_WITH_GLOO)",
                c.rank, c.nranks);
}

infiniStatus_t glooRunOps(Comm &, const std::vector<const Op *> &) {
    return fail(INFINI_STATUS_INTERNAL_ERROR, "a Gloo comm in a plugin built without Gloo");
}

} // namespace infiniccl::cpu
