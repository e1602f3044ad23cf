#include "every_entry.h"

#include <infinirt.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

namespace every_entry {
namespace {

std::vector<char> g_kernels; // the cpu kernels' shared object (FAULT_CPU_KERNELS_PATH)

bool documented(infiniStatus_t st) {
    switch (st) {
    case INFINI_STATUS_SUCCESS: case INFINI_STATUS_BAD_PARAM: case INFINI_STATUS_NULL_POINTER:
    case INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED: case INFINI_STATUS_DEVICE_NOT_FOUND:
    case INFINI_STATUS_OUT_OF_MEMORY: case INFINI_STATUS_INVALID_HANDLE: case INFINI_STATUS_NOT_READY:
    case INFINI_STATUS_NOT_IMPLEMENTED: case INFINI_STATUS_SYMBOL_NOT_FOUND: case INFINI_STATUS_BUILD_FAILED:
        return true;
    default:
        return false;
    }
}

// The program allocates nothing of its own while it runs (the failing allocations are the
// library's): its buffers are static, and so is the text of a broken rule.
char g_violation[1024];
char g_pageable[1 << 16];
char g_registered[1 << 16];

const char *g_last_checked = "(none)";
const char *g_calling = "(none)";
// Each call through C: the call's name noted before it is made (an exception out of it then names it).
#define C(name, ...) (g_calling = (name), c((name), (__VA_ARGS__)))

struct Checker {
    bool ok = true;
    // A documented status, and a message when it failed. Returns whether it succeeded.
    bool operator()(const char *call, infiniStatus_t st) {
        g_last_checked = call;
        if (!ok) {
            return st == INFINI_STATUS_SUCCESS;
        }
        if (!documented(st)) {
            std::snprintf(g_violation, sizeof g_violation, "%s: undocumented status %s (%s)", call,
                          infinirtGetErrorName(st), infinirtGetLastErrorMessage());
            ok = false;
        } else if (st != INFINI_STATUS_SUCCESS && st != INFINI_STATUS_NOT_READY &&
                   infinirtGetLastErrorMessage()[0] == '\0') {
            std::snprintf(g_violation, sizeof g_violation, "%s: failed with %s and no message", call,
                          infinirtGetErrorName(st));
            ok = false;
        }
        return st == INFINI_STATUS_SUCCESS;
    }
};

int g_reset_calls = 0;
void onReset(infiniDevice_t, int, void *) { ++g_reset_calls; }

} // namespace

void prepare() {
    std::ifstream in(FAULT_CPU_KERNELS_PATH, std::ios::binary);
    g_kernels.assign(std::istreambuf_iterator<char>(in), {});
}

const char *violation() { return g_violation; }
const char *lastChecked() { return g_last_checked; }
const char *calling() { return g_calling; }

bool run() {
    g_violation[0] = '\0';
    g_last_checked = "(none)";
    g_calling = "(none)";
    Checker c;
    const infiniDevice_t cpu = INFINI_DEVICE_CPU;
    C("Init", infinirtInit());
    int counts[INFINI_DEVICE_TYPE_COUNT + 4] = {};
    C("GetAllDeviceCount", infinirtGetAllDeviceCount(counts));
    C("GetAllDeviceCountSized", infinirtGetAllDeviceCountSized(counts, INFINI_DEVICE_TYPE_COUNT));
    int n = 0;
    C("GetDeviceCount", infinirtGetDeviceCount(cpu, &n));
    int backends = 0;
    if (C("GetBackendCount", infinirtGetBackendCount(&backends))) {
        for (int i = 0; i < backends; ++i) {
            infinirtBackendInfo_t info{};
            info.struct_size = sizeof info;
            C("GetBackendInfo", infinirtGetBackendInfo(i, &info));
        }
    }
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof props;
    C("GetDeviceProperties", infinirtGetDeviceProperties(cpu, 0, &props));
    size_t free_bytes = 0, total = 0;
    C("GetMemInfo", infinirtGetMemInfo(cpu, 0, &free_bytes, &total));
    infinirtDeviceResourceSnapshot_t snap{};
    C("GetDeviceResourceSnapshot", infinirtGetDeviceResourceSnapshot(cpu, 0, &snap));
    C("SetDevice", infinirtSetDevice(cpu, 0));
    infiniDevice_t t = cpu;
    int id = 0;
    C("GetDevice", infinirtGetDevice(&t, &id));
    if (C("PushDevice", infinirtPushDevice(cpu, 1))) {
        C("PopDevice", infinirtPopDevice(&t, &id));
    }
    size_t limit = 0;
    C("DeviceGetLimit", infinirtDeviceGetLimit(&limit, cpu, 0, INFINIRT_LIMIT_STACK_SIZE));
    C("DeviceSetLimit", infinirtDeviceSetLimit(cpu, 0, INFINIRT_LIMIT_STACK_SIZE, limit));
    uint64_t resets = 0;
    C("DeviceGetResetCount", infinirtDeviceGetResetCount(cpu, 0, &resets));
    C("DeviceAddResetCallback", infinirtDeviceAddResetCallback(onReset, nullptr));

    // Memory, copies and fills.
    const size_t kBytes = 1 << 16;
    void *d = nullptr, *d1 = nullptr, *h = nullptr, *a = nullptr;
    C("Malloc", infinirtMalloc(&d, kBytes));
    C("MallocHost", infinirtMallocHost(&h, kBytes));
    char *const pageable = g_pageable;
    if (d != nullptr) {
        C("Memset", infinirtMemset(d, 2, kBytes));
        C("Memcpy", infinirtMemcpy(d, pageable, kBytes, INFINIRT_MEMCPY_H2D));
        C("Memcpy", infinirtMemcpy(pageable, d, kBytes, INFINIRT_MEMCPY_DEFAULT));
    }
    infinirtPointerAttributes_t attr{};
    attr.struct_size = sizeof attr;
    C("PointerGetAttributes", infinirtPointerGetAttributes(&attr, d != nullptr ? d : pageable));
    size_t live = 0, live_bytes = 0;
    C("GetLiveAllocations", infinirtGetLiveAllocations(&live, &live_bytes));

    // Streams and events.
    infinirtStream_t s = nullptr, sp = nullptr;
    infinirtEvent_t e0 = nullptr, e1 = nullptr;
    C("StreamCreate", infinirtStreamCreate(&s));
    int least = 0, greatest = 0, priority = 0;
    C("DeviceGetStreamPriorityRange", infinirtDeviceGetStreamPriorityRange(&least, &greatest, cpu, 0));
    C("StreamCreateWithPriority", infinirtStreamCreateWithPriority(&sp, greatest));
    C("StreamGetPriority", infinirtStreamGetPriority(&priority, sp));
    C("StreamGetDevice", infinirtStreamGetDevice(s, &t, &id));
    C("EventCreate", infinirtEventCreate(&e0));
    C("EventCreateWithFlags", infinirtEventCreateWithFlags(&e1, 0));
    C("EventRecord", infinirtEventRecord(e0, s));
    if (d != nullptr && h != nullptr) {
        C("MemsetAsync", infinirtMemsetAsync(d, 3, kBytes, s));
        C("MemcpyAsync", infinirtMemcpyAsync(h, d, kBytes, INFINIRT_MEMCPY_D2H, s));
    }
    C("EventRecord", infinirtEventRecord(e1, s));
    C("StreamWaitEvent", infinirtStreamWaitEvent(sp, e1));
    infinirtEventStatus_t event_status;
    C("EventQuery", infinirtEventQuery(e1, &event_status));
    C("EventSynchronize", infinirtEventSynchronize(e1));
    float ms = 0;
    C("EventElapsedTime", infinirtEventElapsedTime(&ms, e0, e1));
    C("StreamQuery", infinirtStreamQuery(s));
    C("StreamSynchronize", infinirtStreamSynchronize(sp));
    if (C("MallocAsync", infinirtMallocAsync(&a, 4096, s))) {
        C("FreeAsync", infinirtFreeAsync(a, s));
    }
    C("StreamSynchronize", infinirtStreamSynchronize(s));
    void *native = nullptr;
    C("StreamGetNativeHandle", infinirtStreamGetNativeHandle(s, &native));
    C("EventGetNativeHandle", infinirtEventGetNativeHandle(e0, &native));
    C("DeviceGetNativeContext", infinirtDeviceGetNativeContext(cpu, 0, &native));

    // Capture and replay.
    infinirtGraph_t g = nullptr;
    infinirtGraphExec_t ge = nullptr;
    if (C("StreamBeginCapture", infinirtStreamBeginCapture(s, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL))) {
        if (d != nullptr) {
            C("MemsetAsync (captured)", infinirtMemsetAsync(d, 4, 64, s));
        }
        C("StreamEndCapture", infinirtStreamEndCapture(s, &g));
    }
    if (g != nullptr && C("GraphInstantiate", infinirtGraphInstantiate(&ge, g, nullptr, nullptr, 0))) {
        C("GraphLaunch", infinirtGraphLaunch(ge, s));
        C("GraphLuanch", infinirtGraphLuanch(ge, s));
        C("StreamSynchronize", infinirtStreamSynchronize(s));
        C("GraphExecDestroy", infinirtGraphExecDestroy(ge));
    }
    if (g != nullptr) {
        C("GraphDestroy", infinirtGraphDestroy(g));
    }

    // Modules and launch.
    infinirtModuleImage_t image{};
    image.struct_size = sizeof image;
    image.format = INFINIRT_MODULE_FORMAT_HOST_SO;
    image.data = g_kernels.data();
    image.size = g_kernels.size();
    infinirtModule_t m = nullptr;
    char log[256];
    if (C("ModuleLoad", infinirtModuleLoad(&m, cpu, 0, &image, 1, log, sizeof log))) {
        infinirtKernel_t k = nullptr;
        if (C("ModuleGetKernel", infinirtModuleGetKernel(&k, m, "touch"))) {
            int64_t value = 0;
            C("KernelGetAttribute", infinirtKernelGetAttribute(&value, INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK, k));
            infinirtKernelSetAttribute(k, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, 0); // may be refused
            C("KernelSetAttribute", INFINI_STATUS_SUCCESS);
            if (d != nullptr) {
                infinirtLaunchConfig_t config{};
                config.struct_size = sizeof config;
                config.grid[0] = config.grid[1] = config.grid[2] = 1;
                config.block[0] = config.block[1] = config.block[2] = 1;
                infinirtKernelArg_t arg{INFINIRT_KERNEL_ARG_POINTER, sizeof(void *), &d};
                C("LaunchKernel", infinirtLaunchKernel(k, &config, &arg, 1, s));
                C("StreamSynchronize", infinirtStreamSynchronize(s));
            }
        }
        void *global = nullptr;
        size_t global_size = 0;
        C("ModuleGetGlobal", infinirtModuleGetGlobal(&global, &global_size, m, "no_such_global"));
        C("ModuleUnload", infinirtModuleUnload(m));
    }
    infinirtModule_t mf = nullptr;
    if (C("ModuleLoadFile", infinirtModuleLoadFile(&mf, cpu, 0, FAULT_CPU_KERNELS_PATH, nullptr, log, sizeof log))) {
        C("ModuleUnload", infinirtModuleUnload(mf));
    }

    // Peers (cpu:1).
    int can = 0, value = 0;
    C("DeviceCanAccessPeer", infinirtDeviceCanAccessPeer(&can, cpu, 0, cpu, 1));
    C("DeviceGetPeerAttribute",
      infinirtDeviceGetPeerAttribute(&value, INFINIRT_PEER_ATTR_ACCESS_SUPPORTED, cpu, 0, cpu, 1));
    if (C("DeviceEnablePeerAccess", infinirtDeviceEnablePeerAccess(cpu, 0, cpu, 1, 0))) {
        C("DeviceDisablePeerAccess", infinirtDeviceDisablePeerAccess(cpu, 0, cpu, 1));
    }
    if (C("PushDevice", infinirtPushDevice(cpu, 1))) {
        C("Malloc", infinirtMalloc(&d1, kBytes));
        C("PopDevice", infinirtPopDevice(&t, &id));
    }
    if (d != nullptr && d1 != nullptr) {
        C("MemcpyPeer", infinirtMemcpyPeer(d1, cpu, 1, d, cpu, 0, kBytes));
        C("MemcpyPeerAsync", infinirtMemcpyPeerAsync(d, cpu, 0, d1, cpu, 1, kBytes, s));
        C("StreamSynchronize", infinirtStreamSynchronize(s));
    }

    // Host registration.
    if (C("HostRegister", infinirtHostRegister(cpu, 0, g_registered, sizeof g_registered, 0))) {
        C("HostUnregister", infinirtHostUnregister(g_registered));
    }

    // Virtual memory.
    size_t gran = 0;
    if (C("MemGetAllocationGranularity",
          infinirtMemGetAllocationGranularity(&gran, cpu, 0, INFINIRT_MEM_GRANULARITY_MINIMUM)) && gran > 0) {
        void *va = nullptr;
        infinirtPhysicalMem_t pm = nullptr;
        if (C("MemAddressReserve", infinirtMemAddressReserve(&va, cpu, 0, 4 * gran, 0))) {
            if (C("MemCreate", infinirtMemCreate(&pm, cpu, 0, gran, 0))) {
                if (C("MemMap", infinirtMemMap(va, gran, pm, 0))) {
                    C("MemSetAccess", infinirtMemSetAccess(va, gran, cpu, 0, INFINIRT_MEM_ACCESS_READWRITE));
                    C("MemUnmap", infinirtMemUnmap(va, gran));
                }
                C("MemRelease", infinirtMemRelease(pm));
            }
            C("MemAddressFree", infinirtMemAddressFree(va, 4 * gran));
        }
    }

    // IPC (in one process: the handle may be refused as this process's own).
    if (d != nullptr) {
        infinirtIpcMemHandle_t mh{};
        if (C("IpcGetMemHandle", infinirtIpcGetMemHandle(&mh, d))) {
            void *opened = nullptr;
            if (C("IpcOpenMemHandle", infinirtIpcOpenMemHandle(&opened, cpu, 0, &mh))) {
                C("IpcCloseMemHandle", infinirtIpcCloseMemHandle(opened));
            }
        }
    }
    infinirtEvent_t ie = nullptr;
    if (C("EventCreateWithFlags", infinirtEventCreateWithFlags(&ie, INFINIRT_EVENT_INTERPROCESS |
                                                                        INFINIRT_EVENT_DISABLE_TIMING))) {
        infinirtIpcEventHandle_t eh{};
        if (C("IpcGetEventHandle", infinirtIpcGetEventHandle(&eh, ie))) {
            infinirtEvent_t opened = nullptr;
            if (C("IpcOpenEventHandle", infinirtIpcOpenEventHandle(&opened, &eh))) {
                C("EventDestroy", infinirtEventDestroy(opened));
            }
        }
        C("EventDestroy", infinirtEventDestroy(ie));
    }

    // Errors.
    C("GetErrorName", infinirtGetErrorName(INFINI_STATUS_BAD_PARAM)[0] != '\0' ? INFINI_STATUS_SUCCESS
                                                                                 : INFINI_STATUS_INTERNAL_ERROR);
    C("GetErrorString", infinirtGetErrorString(INFINI_STATUS_BAD_PARAM)[0] != '\0' ? INFINI_STATUS_SUCCESS
                                                                                     : INFINI_STATUS_INTERNAL_ERROR);
    C("SetLastErrorMessage", infinirtSetLastErrorMessage(INFINI_STATUS_BAD_PARAM, "from the test"));

    // Everything released.
    for (infinirtEvent_t e : {e0, e1}) {
        if (e != nullptr) {
            C("EventDestroy", infinirtEventDestroy(e));
        }
    }
    for (infinirtStream_t x : {s, sp}) {
        if (x != nullptr) {
            C("StreamDestroy", infinirtStreamDestroy(x));
        }
    }
    for (void *p : {d, d1}) {
        if (p != nullptr) {
            C("Free", infinirtFree(p));
        }
    }
    if (h != nullptr) {
        C("FreeHost", infinirtFreeHost(h));
    }
    C("DeviceSynchronize", infinirtDeviceSynchronize());
    C("DeviceReset", infinirtDeviceReset(cpu, 0));
    return c.ok;
}

} // namespace every_entry
