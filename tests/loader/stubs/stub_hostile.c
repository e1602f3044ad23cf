/*
 * stub_hostile.c - plugins that misbehave at the boundary, one way per build (STUB_MODE):
 *  - STUB_UNTERMINATED_REASON: 0 devices, and a reason that fills the whole buffer with no NUL;
 *  - STUB_NEGATIVE_COUNT: get_device_count succeeds with a count of -1;
 *  - STUB_HALF_ENTRY: a struct_size that ends 4 bytes into malloc_device (set, and must never be
 *    called: the loader copies whole entries only);
 *  - STUB_SLOW_INIT: init waits until the test sets stub_release_init, after raising
 *    stub_init_entered, so that a test can fork while another thread is loading the plugins;
 *  - STUB_BAD_TYPE: one device, of device type 99 (STUB_DEVICE_TYPE), which the loader refuses;
 *  - STUB_COUNT: get_device_count reports STUB_COUNT devices (2^31 - 1, or the loader's most).
 */
#include <infinirt_plugin.h>

#include <sched.h>
#include <stddef.h>
#include <string.h>

#define STUB_UNTERMINATED_REASON 1
#define STUB_NEGATIVE_COUNT 2
#define STUB_HALF_ENTRY 3
#define STUB_SLOW_INIT 4
#define STUB_BAD_TYPE 5
#define STUB_HUGE_COUNT 6

#if !defined(STUB_MODE) || !defined(STUB_NAME) || !defined(STUB_DEVICE_TYPE)
#error "define STUB_MODE, STUB_NAME and STUB_DEVICE_TYPE"
#endif

INFINIRT_PLUGIN_EXPORT int stub_init_entered = 0;
INFINIRT_PLUGIN_EXPORT int stub_release_init = 0;

static infiniStatus_t stubInit(void) {
#if STUB_MODE == STUB_SLOW_INIT
    __atomic_store_n(&stub_init_entered, 1, __ATOMIC_SEQ_CST);
    while (!__atomic_load_n(&stub_release_init, __ATOMIC_SEQ_CST)) {
        sched_yield();
    }
#endif
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubGetDeviceCount(int *count, char *reason, size_t reason_size) {
#if STUB_MODE == STUB_UNTERMINATED_REASON
    memset(reason, 'x', reason_size); /* no terminating NUL anywhere */
    *count = 0;
#elif STUB_MODE == STUB_NEGATIVE_COUNT
    (void)reason_size;
    reason[0] = '\0';
    *count = -1;
#elif STUB_MODE == STUB_HUGE_COUNT
    (void)reason_size;
    reason[0] = '\0';
    *count = STUB_COUNT;
#else
    (void)reason_size;
    reason[0] = '\0';
    *count = 1;
#endif
    return INFINI_STATUS_SUCCESS;
}

/* STUB_HALF_ENTRY: cut in half by struct_size; calling it is a failure of the loader. */
static infiniStatus_t stubMallocDevice(int device, void **ptr, size_t size) {
    static char arena[64];
    (void)device;
    (void)size;
    *ptr = arena;
    return INFINI_STATUS_SUCCESS;
}

static const infinirtPluginTable_t kTable = {
#if STUB_MODE == STUB_HALF_ENTRY
    .struct_size = offsetof(infinirtPluginTable_t, malloc_device) + 4,
#else
    .struct_size = sizeof(infinirtPluginTable_t),
#endif
    .version = INFINIRT_PLUGIN_INTERFACE_VERSION,
    .name = STUB_NAME,
    .device_type = (infiniDevice_t)(STUB_DEVICE_TYPE),
    .init = stubInit,
    .get_device_count = stubGetDeviceCount,
    .malloc_device = stubMallocDevice,
};

INFINIRT_PLUGIN_EXPORT infiniStatus_t INFINIRT_PLUGIN_ENTRY(uint32_t loader_version, const infinirtPluginHost_t *host,
                                                            uint32_t *plugin_version,
                                                            const infinirtPluginTable_t **table) {
    (void)loader_version;
    (void)host;
    *plugin_version = INFINIRT_PLUGIN_INTERFACE_VERSION;
    *table = &kTable;
    return INFINI_STATUS_SUCCESS;
}
