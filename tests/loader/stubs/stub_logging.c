/*
 * stub_logging.c - a plugin that records every call it receives, with its arguments.
 *
 * Claims INFINI_DEVICE_CAMBRICON with 2 devices. Memory is real host memory so that copies can
 * run; streams and events are small objects named S<n>/E<n> in the log; native handles are
 * recognisable values the test compares with what the loader hands back.
 *
 * The test reads the log through stubLogRead/stubLogClear (and injects a set_device or host_register
 * failure with stubFailNextSetDevice / stubFailNextHostRegister), found with dlsym on this file
 * (dlopen RTLD_NOLOAD), so the exact arguments the loader passed can be asserted.
 * Thread-safe: one mutex guards the log and the object serials.
 */
#include <infinirt_plugin.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STUB_EXPORT __attribute__((visibility("default")))
#define STUB_DEVICES 2
/* A request of exactly this size fails with OUT_OF_MEMORY and a recognisable message. */
#define STUB_REFUSED_SIZE ((size_t)777777)

typedef struct {
    char tag;   /* 'S' stream, 'E' event */
    int device; /* the device it was created on */
    int serial;
} StubObject;

static const infinirtPluginHost_t *g_host;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_log[1 << 16];
static size_t g_log_len;
static int g_serial;
static int g_fail_next_set_device; /* guarded by g_lock */
static int g_fail_next_host_register; /* guarded by g_lock */

static void logLine(const char *format, ...) {
    char line[512];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    pthread_mutex_lock(&g_lock);
    size_t n = strlen(line);
    if (g_log_len + n + 2 < sizeof g_log) {
        memcpy(g_log + g_log_len, line, n);
        g_log_len += n;
        g_log[g_log_len++] = '\n';
        g_log[g_log_len] = '\0';
    }
    pthread_mutex_unlock(&g_lock);
}

/* Copies the log (NUL-terminated, truncated to `size`) into `out`; returns its full length. */
STUB_EXPORT size_t stubLogRead(char *out, size_t size) {
    pthread_mutex_lock(&g_lock);
    size_t len = g_log_len;
    if (size > 0) {
        size_t n = len < size - 1 ? len : size - 1;
        memcpy(out, g_log, n);
        out[n] = '\0';
    }
    pthread_mutex_unlock(&g_lock);
    return len;
}

STUB_EXPORT void stubLogClear(void) {
    pthread_mutex_lock(&g_lock);
    g_log_len = 0;
    g_log[0] = '\0';
    pthread_mutex_unlock(&g_lock);
}

/* Makes the next set_device call fail, to check the loader keeps the current device then. */
STUB_EXPORT void stubFailNextSetDevice(void) {
    pthread_mutex_lock(&g_lock);
    g_fail_next_set_device = 1;
    pthread_mutex_unlock(&g_lock);
}

/* Makes the next host_register call fail, to check the loader's host-direct copies fall back. */
STUB_EXPORT void stubFailNextHostRegister(void) {
    pthread_mutex_lock(&g_lock);
    g_fail_next_host_register = 1;
    pthread_mutex_unlock(&g_lock);
}

static StubObject *newObject(char tag, int device) {
    StubObject *o = (StubObject *)malloc(sizeof *o);
    if (o == NULL) {
        return NULL;
    }
    pthread_mutex_lock(&g_lock);
    o->serial = ++g_serial;
    pthread_mutex_unlock(&g_lock);
    o->tag = tag;
    o->device = device;
    return o;
}

/* "S3" for a stream object, "NULL" for the default stream. */
static const char *name(const void *object, char *buf, size_t size) {
    const StubObject *o = (const StubObject *)object;
    if (o == NULL) {
        snprintf(buf, size, "NULL");
    } else {
        snprintf(buf, size, "%c%d", o->tag, o->serial);
    }
    return buf;
}

/* The native handle of a stream/event object, or of a device's default stream. */
static void *nativeOf(const StubObject *o, int device) {
    return (void *)(uintptr_t)(o != NULL ? 0xA0000u + (unsigned)o->serial : 0xD0000u + (unsigned)device);
}

static infiniStatus_t stubInit(void) {
    logLine("init");
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubGetDeviceCount(int *count, char *reason, size_t reason_size) {
    (void)reason_size;
    reason[0] = '\0';
    *count = STUB_DEVICES;
    logLine("get_device_count");
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubGetDeviceProperties(int device, infinirtDeviceProperties_t *props) {
    logLine("get_device_properties device=%d struct_size=%zu", device, props->struct_size);
    snprintf(props->name, sizeof props->name, "stub cambricon %d", device);
    props->total_memory = (size_t)1 << 30;
    /* STUB_DEVICE_KINDS="<kind of device 0>,<kind of device 1>" (infinirtDeviceKind_t numbers) for
     * the default-device tests; unset leaves the kind UNKNOWN, as a plugin built before it. */
    const char *kinds = getenv("STUB_DEVICE_KINDS");
    if (kinds != NULL && strlen(kinds) >= 3 && device < STUB_DEVICES) {
        props->device_kind = (infinirtDeviceKind_t)(kinds[device * 2] - '0');
    }
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubSetDevice(int device) {
    pthread_mutex_lock(&g_lock);
    int fail = g_fail_next_set_device;
    g_fail_next_set_device = 0;
    pthread_mutex_unlock(&g_lock);
    logLine("set_device device=%d%s", device, fail ? " -> refused" : "");
    if (fail) {
        g_host->set_error("stub set_device refused (marker 6020)");
        return INFINI_STATUS_DRIVER_ERROR;
    }
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubDeviceSynchronize(int device) {
    logLine("device_synchronize device=%d", device);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubGetMemInfo(int device, size_t *free_bytes, size_t *total_bytes) {
    logLine("get_mem_info device=%d", device);
    *free_bytes = ((size_t)1 << 29) + (size_t)device;
    *total_bytes = (size_t)1 << 30;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubStreamCreate(int device, void **stream) {
    StubObject *o = newObject('S', device);
    if (o == NULL) {
        return INFINI_STATUS_OUT_OF_MEMORY;
    }
    char n[32];
    logLine("stream_create device=%d -> %s", device, name(o, n, sizeof n));
    *stream = o;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubStreamDestroy(int device, void *stream) {
    char n[32];
    logLine("stream_destroy device=%d stream=%s", device, name(stream, n, sizeof n));
    free(stream);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubStreamSynchronize(int device, void *stream) {
    char n[32];
    logLine("stream_synchronize device=%d stream=%s", device, name(stream, n, sizeof n));
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubStreamQuery(int device, void *stream) {
    char n[32];
    logLine("stream_query device=%d stream=%s", device, name(stream, n, sizeof n));
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubStreamWaitEvent(int device, void *stream, void *event) {
    char s[32];
    char e[32];
    logLine("stream_wait_event device=%d stream=%s event=%s", device, name(stream, s, sizeof s),
            name(event, e, sizeof e));
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubEventCreate(int device, uint32_t flags, void **event) {
    StubObject *o = newObject('E', device);
    if (o == NULL) {
        return INFINI_STATUS_OUT_OF_MEMORY;
    }
    char n[32];
    logLine("event_create device=%d flags=%u -> %s", device, flags, name(o, n, sizeof n));
    *event = o;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubEventDestroy(int device, void *event) {
    char n[32];
    logLine("event_destroy device=%d event=%s", device, name(event, n, sizeof n));
    free(event);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubEventRecord(int device, void *event, void *stream) {
    char e[32];
    char s[32];
    logLine("event_record device=%d event=%s stream=%s", device, name(event, e, sizeof e), name(stream, s, sizeof s));
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubEventQuery(int device, void *event, infinirtEventStatus_t *status) {
    char n[32];
    logLine("event_query device=%d event=%s", device, name(event, n, sizeof n));
    *status = INFINIRT_EVENT_COMPLETE;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubEventSynchronize(int device, void *event) {
    char n[32];
    logLine("event_synchronize device=%d event=%s", device, name(event, n, sizeof n));
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubEventElapsedTime(int device, float *ms, void *start, void *end) {
    char a[32];
    char b[32];
    logLine("event_elapsed_time device=%d start=%s end=%s", device, name(start, a, sizeof a), name(end, b, sizeof b));
    *ms = 1.5f;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubAllocate(const char *entry, int device, void **ptr, size_t size, const void *stream) {
    char s[32];
    if (size == STUB_REFUSED_SIZE) {
        logLine("%s device=%d size=%zu -> refused", entry, device, size);
        g_host->set_error("stub refuses 777777 bytes (marker 5150)");
        return INFINI_STATUS_OUT_OF_MEMORY;
    }
    void *p = calloc(1, size);
    if (p == NULL) {
        g_host->set_error("stub: calloc failed");
        return INFINI_STATUS_OUT_OF_MEMORY;
    }
    if (stream != NULL || strcmp(entry, "malloc_async") == 0) {
        logLine("%s device=%d size=%zu stream=%s -> %p", entry, device, size, name(stream, s, sizeof s), p);
    } else {
        logLine("%s device=%d size=%zu -> %p", entry, device, size, p);
    }
    *ptr = p;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubMallocDevice(int device, void **ptr, size_t size) {
    return stubAllocate("malloc_device", device, ptr, size, NULL);
}

static infiniStatus_t stubFreeDevice(int device, void *ptr) {
    logLine("free_device device=%d ptr=%p", device, ptr);
    free(ptr);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubMallocHost(int device, void **ptr, size_t size) {
    return stubAllocate("malloc_host", device, ptr, size, NULL);
}

static infiniStatus_t stubFreeHost(int device, void *ptr) {
    logLine("free_host device=%d ptr=%p", device, ptr);
    free(ptr);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubMemcpySync(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind) {
    logLine("memcpy_sync device=%d dst=%p src=%p size=%zu kind=%d", device, dst, src, size, (int)kind);
    memcpy(dst, src, size);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubMemcpyAsync(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                                      void *stream) {
    char s[32];
    logLine("memcpy_async device=%d dst=%p src=%p size=%zu kind=%d stream=%s", device, dst, src, size, (int)kind,
            name(stream, s, sizeof s));
    memcpy(dst, src, size);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubMemsetSync(int device, void *ptr, int value, size_t count) {
    logLine("memset_sync device=%d ptr=%p value=%d count=%zu", device, ptr, value, count);
    memset(ptr, value, count);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubMemsetAsync(int device, void *ptr, int value, size_t count, void *stream) {
    char s[32];
    logLine("memset_async device=%d ptr=%p value=%d count=%zu stream=%s", device, ptr, value, count,
            name(stream, s, sizeof s));
    memset(ptr, value, count);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubMallocAsync(int device, void **ptr, size_t size, void *stream) {
    return stubAllocate("malloc_async", device, ptr, size, stream);
}

static infiniStatus_t stubFreeAsync(int device, void *ptr, void *stream) {
    char s[32];
    logLine("free_async device=%d ptr=%p stream=%s", device, ptr, name(stream, s, sizeof s));
    free(ptr);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubStreamGetNative(int device, void *stream, void **native) {
    char s[32];
    *native = nativeOf((const StubObject *)stream, device);
    logLine("stream_get_native device=%d stream=%s -> %p", device, name(stream, s, sizeof s), *native);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubEventGetNative(int device, void *event, void **native) {
    char e[32];
    *native = nativeOf((const StubObject *)event, device);
    logLine("event_get_native device=%d event=%s -> %p", device, name(event, e, sizeof e), *native);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubDeviceGetNativeContext(int device, void **native) {
    *native = (void *)(uintptr_t)(0xC0000u + (unsigned)device);
    logLine("device_get_native_context device=%d -> %p", device, *native);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubHostRegister(int device, void *ptr, size_t size, uint32_t flags) {
    pthread_mutex_lock(&g_lock);
    int fail = g_fail_next_host_register;
    g_fail_next_host_register = 0;
    pthread_mutex_unlock(&g_lock);
    logLine("host_register device=%d ptr=%p size=%zu flags=%u%s", device, ptr, size, flags, fail ? " -> refused" : "");
    if (fail) {
        g_host->set_error("stub host_register refused (marker 7031)");
        return INFINI_STATUS_DRIVER_ERROR;
    }
    return INFINI_STATUS_SUCCESS;
}

/* Logs the range's first byte: read while the memory is still allocated, it is what the test wrote. */
static infiniStatus_t stubHostUnregister(int device, void *ptr) {
    logLine("host_unregister device=%d ptr=%p first=%u", device, ptr, (unsigned)*(const unsigned char *)ptr);
    return INFINI_STATUS_SUCCESS;
}

/* Graph entries are left NULL on purpose: the loader must record and replay captured work. */
static const infinirtPluginTable_t kTable = {
    .struct_size = sizeof(infinirtPluginTable_t),
    .version = INFINIRT_PLUGIN_INTERFACE_VERSION,
    .name = "stublog",
    .device_type = INFINI_DEVICE_CAMBRICON,
    .init = stubInit,
    .get_device_count = stubGetDeviceCount,
    .get_device_properties = stubGetDeviceProperties,
    .set_device = stubSetDevice,
    .device_synchronize = stubDeviceSynchronize,
    .get_mem_info = stubGetMemInfo,
    .stream_create = stubStreamCreate,
    .stream_destroy = stubStreamDestroy,
    .stream_synchronize = stubStreamSynchronize,
    .stream_query = stubStreamQuery,
    .stream_wait_event = stubStreamWaitEvent,
    .event_create = stubEventCreate,
    .event_destroy = stubEventDestroy,
    .event_record = stubEventRecord,
    .event_query = stubEventQuery,
    .event_synchronize = stubEventSynchronize,
    .event_elapsed_time = stubEventElapsedTime,
    .malloc_device = stubMallocDevice,
    .free_device = stubFreeDevice,
    .malloc_host = stubMallocHost,
    .free_host = stubFreeHost,
    .memcpy_sync = stubMemcpySync,
    .memcpy_async = stubMemcpyAsync,
    .memset_sync = stubMemsetSync,
    .memset_async = stubMemsetAsync,
    .malloc_async = stubMallocAsync,
    .free_async = stubFreeAsync,
    .stream_get_native = stubStreamGetNative,
    .event_get_native = stubEventGetNative,
    .device_get_native_context = stubDeviceGetNativeContext,
    .host_register = stubHostRegister,
    .host_unregister = stubHostUnregister,
};

INFINIRT_PLUGIN_EXPORT infiniStatus_t INFINIRT_PLUGIN_ENTRY(uint32_t loader_version, const infinirtPluginHost_t *host,
                                                            uint32_t *plugin_version,
                                                            const infinirtPluginTable_t **table) {
    logLine("query loader_version=%u", loader_version);
    g_host = host;
    *plugin_version = INFINIRT_PLUGIN_INTERFACE_VERSION < loader_version ? INFINIRT_PLUGIN_INTERFACE_VERSION
                                                                         : loader_version;
    *table = &kTable;
    return INFINI_STATUS_SUCCESS;
}
