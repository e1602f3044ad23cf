// Loading NCCL, the unique id, communicators, and the translations every call shares (status,
// dtype, native stream).
#include "nccl_backend.h"

#include <cstring>
#include <vector>

namespace infiniccl::nccl {

namespace {

Api g_api;
constexpr int kVersion2_10 = 21000; // NCCL_VERSION(2, 10, 0): bf16 and ncclAvg

} // namespace

const Api &api() { return g_api; }

infiniStatus_t init(char *reason, size_t reason_size) {
    std::string why;
    if (!loadApi(&g_api, &why)) {
        std::snprintf(reason, reason_size, "%s", why.c_str());
        return INFINI_STATUS_BACKEND_UNAVAILABLE;
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t ncclFailure(const char *call, ncclResult_t rc, ncclComm_t comm) {
    const char *text = g_api.GetErrorString != nullptr ? g_api.GetErrorString(rc) : "";
    const char *last = g_api.GetLastError != nullptr ? g_api.GetLastError(comm) : nullptr;
    const infiniStatus_t status = (rc == ncclInvalidArgument || rc == ncclInvalidUsage) ? INFINI_STATUS_BAD_PARAM
                                                                                       : INFINI_STATUS_DRIVER_ERROR;
    return fail(status, "%s: %s (ncclResult_t %d)%s%s", call, text != nullptr ? text : "", static_cast<int>(rc),
                last != nullptr && last[0] != '\0' ? ": " : "", last != nullptr ? last : "");
}

bool toNccl(infiniDtype_t dtype, ncclDataType_t *out) {
    switch (dtype) {
    case INFINI_DTYPE_BYTE: case INFINI_DTYPE_BOOL: case INFINI_DTYPE_I8: *out = ncclInt8; return true;
    case INFINI_DTYPE_U8: *out = ncclUint8; return true;
    case INFINI_DTYPE_I32: *out = ncclInt32; return true;
    case INFINI_DTYPE_U32: *out = ncclUint32; return true;
    case INFINI_DTYPE_I64: *out = ncclInt64; return true;
    case INFINI_DTYPE_U64: *out = ncclUint64; return true;
    case INFINI_DTYPE_F16: *out = ncclFloat16; return true;
    case INFINI_DTYPE_F32: *out = ncclFloat32; return true;
    case INFINI_DTYPE_F64: *out = ncclFloat64; return true;
    case INFINI_DTYPE_BF16:
        *out = ncclBfloat16;
        return g_api.version >= kVersion2_10;
    default: return false;
    }
}

int supports(infiniDtype_t dtype, int reduction) {
    ncclDataType_t t{};
    if (!toNccl(dtype, &t)) return 0;
    return reduction == 0 || (dtype != INFINI_DTYPE_BYTE && dtype != INFINI_DTYPE_BOOL) ? 1 : 0;
}

bool avgSupported() { return g_api.version >= kVersion2_10; }

infiniStatus_t nativeStream(infinirtStream_t stream, cudaStream_t *out) {
    void *native = nullptr;
    if (infiniStatus_t st = infinirtStreamGetNativeHandle(stream, &native)) {
        return fail(st, "the native stream of infinirt stream %p: %s", stream, infinirtGetLastErrorMessage());
    }
    *out = native;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t getUniqueId(unsigned char *id) {
    ncclUniqueId nid;
    std::memset(&nid, 0, sizeof nid);
    if (ncclResult_t rc = g_api.GetUniqueId(&nid)) return ncclFailure("ncclGetUniqueId", rc, nullptr);
    // infiniccl keeps 8 of the 128 bytes; NCCL's id (a socket address and a magic) uses far fewer.
    for (size_t i = INFINICCL_PLUGIN_UNIQUE_ID_BYTES; i < sizeof nid.internal; ++i) {
        if (nid.internal[i] != 0) {
            return fail(INFINI_STATUS_INTERNAL_ERROR, "this NCCL's unique id uses more than %d bytes",
                        INFINICCL_PLUGIN_UNIQUE_ID_BYTES);
        }
    }
    std::memcpy(id, nid.internal, INFINICCL_PLUGIN_UNIQUE_ID_BYTES);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t commInitAll(infinicclPluginComm_t *comms, int ndevice, const int *device_ids) {
    infiniDevice_t type{};
    int current = 0;
    const bool restore = infinirtGetDevice(&type, &current) == INFINI_STATUS_SUCCESS;
    std::vector<ncclComm_t> native(static_cast<size_t>(ndevice), nullptr);
    const ncclResult_t rc = g_api.CommInitAll(native.data(), ndevice, device_ids);
    if (restore) infinirtSetDevice(type, current); // NCCL moved the CUDA runtime's current device
    if (rc != ncclSuccess) return ncclFailure("ncclCommInitAll", rc, nullptr);
    for (int i = 0; i < ndevice; ++i) comms[i] = new Comm{native[i], device_ids[i], i, ndevice};
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t commInitRank(infinicclPluginComm_t *comm, int nranks, const unsigned char *id, int rank, int device_id) {
    // NCCL creates the comm on the CUDA runtime's current device: make it this device's primary
    // context (infinirtSetDevice does, as cudaSetDevice would).
    if (infiniStatus_t st = infinirtSetDevice(INFINI_DEVICE_NVIDIA, device_id)) {
        return fail(st, "making nvidia:%d current: %s", device_id, infinirtGetLastErrorMessage());
    }
    ncclUniqueId nid;
    std::memset(&nid, 0, sizeof nid);
    std::memcpy(nid.internal, id, INFINICCL_PLUGIN_UNIQUE_ID_BYTES);
    ncclComm_t native = nullptr;
    if (ncclResult_t rc = g_api.CommInitRank(&native, nranks, nid, rank)) return ncclFailure("ncclCommInitRank", rc, nullptr);
    *comm = new Comm{native, device_id, rank, nranks};
    return INFINI_STATUS_SUCCESS;
}

// NCCL has a bootstrap of its own: rank 0's id (ncclGetUniqueId, its listener's address; NCCL_SOCKET_IFNAME
// picks the interface) came through the loader's store, and NCCL's sockets or InfiniBand take it from there.
infiniStatus_t commInitRankRendezvous(infinicclPluginComm_t *comm, int nranks, const unsigned char *id, int rank,
                                      int device_id, const infinicclPluginRendezvous_t *) {
    return commInitRank(comm, nranks, id, rank, device_id);
}

infiniStatus_t commDestroy(infinicclPluginComm_t comm) {
    auto *c = static_cast<Comm *>(comm);
    const ncclResult_t rc = g_api.CommDestroy(c->native);
    delete c;
    return rc == ncclSuccess ? INFINI_STATUS_SUCCESS : ncclFailure("ncclCommDestroy", rc, nullptr);
}

} // namespace infiniccl::nccl
