/*
 * stub_thread_state.c - a plugin with native per-thread state, for the device stack's protocol
 * (infinirtPushDevice / infinirtPopDevice; thread_state_test.cc).
 *
 * Two devices. The calling thread's "native current" is a thread-local value, STUB_TS_CALLER_OWN
 * on a thread that never set one (the caller's own context, in CUDA's terms): set_device(d) makes
 * it d, thread_state_save writes it to *state, thread_state_restore makes it the saved value, and
 * set_device_saving does save then set, in the table only when STUB_FUSED is 1 (else the loader
 * calls the two).
 *
 * The test reaches the stub through functions exported from it, found with dlsym on this file
 * (dlopen RTLD_NOLOAD): stubThreadStateNative / stubThreadStateSetNative read and set the calling
 * thread's native value; stubThreadStateFail(entry, detail) makes the calling thread's next call of
 * the named entry fail with INTERNAL_ERROR, after host->set_error(detail) unless detail is NULL
 * (entry "" disarms). A failing entry changes no native state and writes no *state.
 */
#include <infinirt_plugin.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if !defined(STUB_NAME) || !defined(STUB_DEVICE_TYPE) || !defined(STUB_FUSED)
#error "define STUB_NAME, STUB_DEVICE_TYPE and STUB_FUSED"
#endif

#define STUB_EXPORT __attribute__((visibility("default")))
#define STUB_DEVICES 2
#define STUB_TS_CALLER_OWN ((intptr_t)1000)
#define STUB_TS_ENTRY_SIZE 32

static const infinirtPluginHost_t *g_host;
static _Thread_local intptr_t t_native = STUB_TS_CALLER_OWN;
/* The entry whose next call on this thread fails ("" none), and the detail it sets (or none). */
static _Thread_local char t_fail_entry[STUB_TS_ENTRY_SIZE];
static _Thread_local const char *t_fail_detail;

STUB_EXPORT intptr_t stubThreadStateNative(void) { return t_native; }

STUB_EXPORT void stubThreadStateSetNative(intptr_t value) { t_native = value; }

STUB_EXPORT void stubThreadStateFail(const char *entry, const char *detail) {
    snprintf(t_fail_entry, sizeof t_fail_entry, "%s", entry);
    t_fail_detail = detail;
}

/* Whether this call of `entry` is the one to fail; if so, the failure is used up and reported. */
static int failsNow(const char *entry) {
    if (strcmp(t_fail_entry, entry) != 0) {
        return 0;
    }
    t_fail_entry[0] = '\0';
    if (t_fail_detail != NULL) {
        g_host->set_error(t_fail_detail);
    }
    return 1;
}

static infiniStatus_t stubInit(void) { return INFINI_STATUS_SUCCESS; }

static infiniStatus_t stubGetDeviceCount(int *count, char *reason, size_t reason_size) {
    (void)reason_size;
    reason[0] = '\0';
    *count = STUB_DEVICES;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubSetDevice(int device) {
    if (failsNow("set_device")) {
        return INFINI_STATUS_INTERNAL_ERROR;
    }
    t_native = device;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubStateSave(int device, void **state) {
    (void)device;
    if (failsNow("thread_state_save")) {
        return INFINI_STATUS_INTERNAL_ERROR;
    }
    *state = (void *)t_native;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubStateRestore(int device, void *state) {
    (void)device;
    if (failsNow("thread_state_restore")) {
        return INFINI_STATUS_INTERNAL_ERROR;
    }
    t_native = (intptr_t)state;
    return INFINI_STATUS_SUCCESS;
}

#if STUB_FUSED
static infiniStatus_t stubSetDeviceSaving(int device, void **state) {
    if (failsNow("set_device_saving")) {
        return INFINI_STATUS_INTERNAL_ERROR;
    }
    *state = (void *)t_native;
    t_native = device;
    return INFINI_STATUS_SUCCESS;
}
#endif

static const infinirtPluginTable_t kTable = {
    .struct_size = sizeof(infinirtPluginTable_t),
    .version = INFINIRT_PLUGIN_INTERFACE_VERSION,
    .name = STUB_NAME,
    .device_type = STUB_DEVICE_TYPE,
    .init = stubInit,
    .get_device_count = stubGetDeviceCount,
    .set_device = stubSetDevice,
    .thread_state_save = stubStateSave,
    .thread_state_restore = stubStateRestore,
#if STUB_FUSED
    .set_device_saving = stubSetDeviceSaving,
#endif
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
