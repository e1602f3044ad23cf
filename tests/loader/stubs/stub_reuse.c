/*
 * stub_reuse.c - a plugin whose "device memory" is an arena of fixed slots handed out lowest free
 * first, as a driver reuses a freed range at once: infinirtMalloc, a module's global and memory
 * the caller allocates natively (stubReuseNativeMalloc, found with dlsym) all take slots from it.
 * pointer_get_attributes knows every live slot, whoever took it; stubReuseKnowPointers(0) makes it
 * answer "not mine" for everything (as a backend without that entry). For the validation layer's
 * freed-memory record (layers_test.cc, ValidationReuse).
 */
#include <infinirt_plugin.h>

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define SLOT_BYTES 64
#define SLOTS 8

static _Alignas(64) unsigned char g_arena[SLOTS][SLOT_BYTES];
static int g_used[SLOTS];
static int g_know_pointers = 1;
static int g_module; /* the one module's object; its global's slot is g_global */
static int g_global = -1;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static int takeSlot(void) {
    pthread_mutex_lock(&g_lock);
    int slot = -1;
    for (int i = 0; i < SLOTS && slot < 0; ++i) {
        if (!g_used[i]) {
            g_used[i] = 1;
            slot = i;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return slot;
}

/* The slot holding p, or -1. */
static int slotOf(const void *p) {
    const uintptr_t a = (uintptr_t)p;
    const uintptr_t base = (uintptr_t)g_arena;
    return a >= base && a < base + sizeof g_arena ? (int)((a - base) / SLOT_BYTES) : -1;
}

static int releaseSlot(const void *p) {
    const int slot = slotOf(p);
    pthread_mutex_lock(&g_lock);
    const int was_used = slot >= 0 && g_used[slot];
    if (was_used) {
        g_used[slot] = 0;
    }
    pthread_mutex_unlock(&g_lock);
    return was_used;
}

/* The caller's own allocator, outside infinirt (as cudaMalloc beside infinirt). */
INFINIRT_PLUGIN_EXPORT void *stubReuseNativeMalloc(void) {
    const int slot = takeSlot();
    return slot < 0 ? NULL : g_arena[slot];
}
INFINIRT_PLUGIN_EXPORT void stubReuseNativeFree(void *p) { (void)releaseSlot(p); }
INFINIRT_PLUGIN_EXPORT void stubReuseKnowPointers(int on) { g_know_pointers = on; }

static const infinirtPluginHost_t *g_host;

static infiniStatus_t stubInit(void) { return INFINI_STATUS_SUCCESS; }

static infiniStatus_t stubGetDeviceCount(int *count, char *reason, size_t reason_size) {
    (void)reason_size;
    reason[0] = '\0';
    *count = 1;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubSetDevice(int device) {
    (void)device;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubMallocDevice(int device, void **ptr, size_t size) {
    (void)device;
    const int slot = size <= SLOT_BYTES ? takeSlot() : -1;
    if (slot < 0) {
        g_host->set_error("stubreuse: slots are 64 bytes and there are 8");
        return INFINI_STATUS_OUT_OF_MEMORY;
    }
    *ptr = g_arena[slot];
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubFreeDevice(int device, void *ptr) {
    (void)device;
    if (!releaseSlot(ptr)) {
        g_host->set_error("stubreuse: not a live slot");
        return INFINI_STATUS_BAD_PARAM;
    }
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubMemcpySync(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind) {
    (void)device;
    (void)kind;
    memmove(dst, src, size);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubMemsetSync(int device, void *ptr, int value, size_t size) {
    (void)device;
    memset(ptr, value, size);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubPointerGetAttributes(const void *ptr, infinirtPointerAttributes_t *attributes) {
    const int slot = slotOf(ptr);
    pthread_mutex_lock(&g_lock);
    const int live = g_know_pointers && slot >= 0 && g_used[slot];
    pthread_mutex_unlock(&g_lock);
    if (!live) {
        return INFINI_STATUS_BAD_PARAM;
    }
    attributes->device_type = STUB_DEVICE_TYPE;
    attributes->device_id = 0;
    attributes->kind = INFINIRT_MEMORY_DEVICE;
    attributes->base = g_arena[slot];
    attributes->size = SLOT_BYTES;
    return INFINI_STATUS_SUCCESS;
}

/* One module at a time; loading it places its global "counter" in the lowest free slot, as the
 * CUDA driver places a module's globals in device memory when it loads the module. */
static infiniStatus_t stubModuleLoad(int device, const infinirtModuleImage_t *images, size_t count, char *log,
                                     size_t log_size, void **module) {
    (void)device;
    (void)images;
    (void)count;
    if (log != NULL && log_size > 0) {
        log[0] = '\0';
    }
    if (g_global >= 0 || (g_global = takeSlot()) < 0) {
        g_host->set_error("stubreuse: one module at a time, and a free slot for its global");
        return INFINI_STATUS_OUT_OF_MEMORY;
    }
    *module = &g_module;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubModuleUnload(int device, void *module) {
    (void)device;
    (void)module;
    (void)releaseSlot(g_arena[g_global]);
    g_global = -1;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubModuleGetKernel(int device, void *module, const char *name, void **kernel) {
    (void)device;
    (void)module;
    (void)kernel;
    g_host->set_error("stubreuse: no kernel named that (the module has none)");
    (void)name;
    return INFINI_STATUS_SYMBOL_NOT_FOUND;
}

static infiniStatus_t stubModuleGetGlobal(int device, void *module, const char *name, void **ptr, size_t *size) {
    (void)device;
    (void)module;
    if (strcmp(name, "counter") != 0) {
        g_host->set_error("stubreuse: the module's only global is \"counter\"");
        return INFINI_STATUS_SYMBOL_NOT_FOUND;
    }
    *ptr = g_arena[g_global];
    if (size != NULL) {
        *size = SLOT_BYTES;
    }
    return INFINI_STATUS_SUCCESS;
}

static const infinirtPluginTable_t kTable = {
    .struct_size = sizeof(infinirtPluginTable_t),
    .version = INFINIRT_PLUGIN_INTERFACE_VERSION,
    .name = "stubreuse",
    .device_type = STUB_DEVICE_TYPE,
    .init = stubInit,
    .get_device_count = stubGetDeviceCount,
    .set_device = stubSetDevice,
    .malloc_device = stubMallocDevice,
    .free_device = stubFreeDevice,
    .memcpy_sync = stubMemcpySync,
    .memset_sync = stubMemsetSync,
    .pointer_get_attributes = stubPointerGetAttributes,
    .module_load = stubModuleLoad,
    .module_unload = stubModuleUnload,
    .module_get_kernel = stubModuleGetKernel,
    .module_get_global = stubModuleGetGlobal,
};

INFINIRT_PLUGIN_EXPORT infiniStatus_t INFINIRT_PLUGIN_ENTRY(uint32_t loader_version, const infinirtPluginHost_t *host,
                                                            uint32_t *plugin_version,
                                                            const infinirtPluginTable_t **table) {
    (void)loader_version;
    g_host = host;
    *plugin_version = INFINIRT_PLUGIN_INTERFACE_VERSION;
    *table = &kTable;
    return INFINI_STATUS_SUCCESS;
}
