// The trace layer (INFINIRT_TRACE=path.json): every plugin call as a Chrome trace event ("ph":"X",
// loadable in Perfetto and chrome://tracing), named by the C ABI function that made it, with its
// device, sizes and handles. Each thread appends to its own buffer (no shared lock per call); a
// full buffer, a thread's exit and the process's exit write to the file. INFINIRT_TRACE_DEVICE=1
// adds the device-side span of each copy, fill and launch, measured with a pair of timing events
// recorded around it on its stream and placed on the host clock through one anchor event per
// device; spans are resolved after the synchronising calls that complete them.
#include "layers.h"
#include "never_destroyed.h"

#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <map>
#include <mutex>
#include <pthread.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace infinirt {

namespace {

constexpr size_t kBufferEvents = 4096;     // events per thread before its buffer is written out
constexpr size_t kMaxPendingSpans = 65536; // device spans waiting for their events

struct TraceEvent {
    Entry entry = Entry::Count;
    int type = 0;
    int argc = 0;
    const Arg *roles = nullptr;
    const char *const *names = nullptr;
    uint64_t value[kMaxArgs] = {};
    uint64_t start_ns = 0;
    uint64_t dur_ns = 0;
    infiniStatus_t status = INFINI_STATUS_SUCCESS;
    long tid = 0;
    bool device_span = false;
};

struct Buffer {
    std::mutex mutex;
    std::vector<TraceEvent> events;
    long tid = 0;
};

struct PendingSpan {
    TraceEvent event; // the call's event, copied; becomes the device span
    void *start = nullptr;
    void *end = nullptr;
};

struct Anchor {
    void *event = nullptr;
    uint64_t host_ns = 0;
};

struct File {
    std::mutex mutex;
    FILE *out = nullptr;
    bool first = true;
    std::atomic<bool> closed{false};
    std::vector<Buffer *> buffers; // every thread's, never freed
    std::map<std::pair<int, int>, Anchor> anchors;
    std::vector<PendingSpan> pending;
    size_t dropped_spans = 0;
};

File &file() {
    static NeverDestroyed<File> f_storage; // never destroyed: threads may trace during exit
    File *const f = &f_storage.get();
    return *f;
}

pthread_key_t g_thread_key;
thread_local Buffer *t_buffer = nullptr;


// The device track of (type, device) in the trace: a tid no thread has.
long deviceTrack(int type, int device) { return 0x40000000L + type * 1024L + device; }

void writeEvent(File &f, const TraceEvent &e) {
    std::string args;
    char item[160];
    std::snprintf(item, sizeof item, "\"entry\":\"%s\",\"backend\":\"%s\",\"status\":\"%s\"", entryField(e.entry),
                  typeName(e.type), infinirtGetErrorName(e.status));
    args += item;
    for (int i = 0; i < e.argc; ++i) {
        const Arg r = e.roles[i];
        if (r == Arg::Skip || e.names[i] == nullptr) {
            continue;
        }
        if (r == Arg::Device || r == Arg::Value || r == Arg::Size) {
            std::snprintf(item, sizeof item, ",\"%s\":%" PRId64, e.names[i], static_cast<int64_t>(e.value[i]));
        } else {
            std::snprintf(item, sizeof item, ",\"%s\":\"%#" PRIx64 "\"", e.names[i], e.value[i]);
        }
        args += item;
    }
    const long tid = e.device_span ? deviceTrack(e.type, static_cast<int>(e.value[0])) : e.tid;
    std::fprintf(f.out, "%s\n{\"name\":\"%s%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,\"tid\":%ld,\"args\":{%s}}",
                 f.first ? "" : ",", entryApi(e.entry), e.device_span ? " (device)" : "",
                 e.device_span ? "device" : "api", static_cast<double>(e.start_ns) / 1000.0,
                 static_cast<double>(e.dur_ns) / 1000.0, static_cast<int>(getpid()), tid, args.c_str());
    f.first = false;
}

void writeThreadName(File &f, long tid, const char *name) {
    std::fprintf(f.out, "%s\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%ld,\"args\":{\"name\":\"%s\"}}",
                 f.first ? "" : ",", static_cast<int>(getpid()), tid, name);
    f.first = false;
}

// Caller holds b.mutex.
void flushBuffer(Buffer &b) {
    File &f = file();
    std::lock_guard<std::mutex> lock(f.mutex);
    if (!f.closed) {
        for (const TraceEvent &e : b.events) {
            writeEvent(f, e);
        }
    }
    b.events.clear();
}

void onThreadExit(void *p) {
    auto *b = static_cast<Buffer *>(p);
    std::lock_guard<std::mutex> lock(b->mutex);
    flushBuffer(*b);
}

Buffer *threadBuffer() {
    if (t_buffer == nullptr) {
        auto *b = new Buffer();
        b->tid = layerThreadId();
        b->events.reserve(kBufferEvents);
        File &f = file();
        {
            std::lock_guard<std::mutex> lock(f.mutex);
            f.buffers.push_back(b);
            if (!f.closed) {
                char name[48];
                std::snprintf(name, sizeof name, "thread %ld", b->tid);
                writeThreadName(f, b->tid, name);
            }
        }
        pthread_setspecific(g_thread_key, b);
        t_buffer = b;
    }
    return t_buffer;
}

void append(const TraceEvent &e) {
    Buffer *b = threadBuffer();
    std::lock_guard<std::mutex> lock(b->mutex);
    b->events.push_back(e);
    if (b->events.size() >= kBufferEvents) {
        flushBuffer(*b);
    }
}

TraceEvent capture(const LayerCall &c, infiniStatus_t st) {
    TraceEvent e;
    e.entry = c.entry;
    e.type = c.type;
    e.argc = c.argc;
    e.roles = c.roles;
    e.names = c.names;
    e.status = st;
    e.tid = layerThreadId();
    for (int i = 0; i < c.argc; ++i) {
        const Arg r = c.roles[i];
        const bool out = r == Arg::OutMem || r == Arg::OutStream || r == Arg::OutEvent || r == Arg::OutGraph ||
                         r == Arg::OutExec || r == Arg::OutModule || r == Arg::OutKernel;
        // Outputs: what the call created (written only on success).
        e.value[i] = !out ? c.value[i]
                     : st == INFINI_STATUS_SUCCESS && c.value[i] != 0
                         ? reinterpret_cast<uintptr_t>(*reinterpret_cast<void **>(c.value[i]))
                         : 0;
    }
    return e;
}

} // namespace

uint64_t traceNow() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

void traceInit(const char *path) {
    File &f = file();
    f.out = std::fopen(path, "w");
    if (f.out == nullptr) {
        logf(INFINIRT_LOG_WARN, "INFINIRT_TRACE=%s: cannot open the file; tracing off", path);
        f.closed = true;
        return;
    }
    pthread_key_create(&g_thread_key, onThreadExit);
    std::fprintf(f.out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
    std::fprintf(f.out, "\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"infinirt\"}}",
                 static_cast<int>(getpid()));
    f.first = false;
}

void traceSpan(const LayerCall &c, uint64_t start_ns, uint64_t end_ns, infiniStatus_t st) {
    if (file().closed) {
        return;
    }
    TraceEvent e = capture(c, st);
    e.start_ns = start_ns;
    e.dur_ns = end_ns - start_ns;
    append(e);
}

void traceDeviceSpanBegin(const LayerCall &c, void *stream, void *&start_event) {
    const infinirtPluginTable_t &t = layerNext(c.type);
    const int device = c.device();
    start_event = nullptr;
    if (t.event_create == nullptr || t.event_record == nullptr || t.event_elapsed_time == nullptr ||
        t.event_query == nullptr || t.event_destroy == nullptr || t.event_synchronize == nullptr) {
        return;
    }
    File &f = file();
    {
        std::lock_guard<std::mutex> lock(f.mutex);
        if (f.closed || f.pending.size() >= kMaxPendingSpans) {
            ++f.dropped_spans;
            return;
        }
        Anchor &a = f.anchors[{c.type, device}];
        if (a.event == nullptr) {
            // The device's clock against the host's: one event, completed, at a known host time.
            void *ev = nullptr;
            if (t.event_create(device, 0, &ev) != INFINI_STATUS_SUCCESS) {
                return;
            }
            if (t.event_record(device, ev, stream) != INFINI_STATUS_SUCCESS ||
                t.event_synchronize(device, ev) != INFINI_STATUS_SUCCESS) {
                t.event_destroy(device, ev);
                return;
            }
            a.event = ev;
            a.host_ns = traceNow();
            char name[64];
            std::snprintf(name, sizeof name, "%s:%d (device)", typeName(c.type), device);
            writeThreadName(f, deviceTrack(c.type, device), name);
        }
    }
    void *ev = nullptr;
    if (t.event_create(device, 0, &ev) != INFINI_STATUS_SUCCESS) {
        return;
    }
    if (t.event_record(device, ev, stream) != INFINI_STATUS_SUCCESS) {
        t.event_destroy(device, ev);
        return;
    }
    start_event = ev;
}

void traceDeviceSpanEnd(const LayerCall &c, void *stream, void *start_event, bool ok) {
    if (start_event == nullptr) {
        return;
    }
    const infinirtPluginTable_t &t = layerNext(c.type);
    const int device = c.device();
    void *end = nullptr;
    if (!ok || t.event_create(device, 0, &end) != INFINI_STATUS_SUCCESS) {
        t.event_destroy(device, start_event);
        return;
    }
    if (t.event_record(device, end, stream) != INFINI_STATUS_SUCCESS) {
        t.event_destroy(device, start_event);
        t.event_destroy(device, end);
        return;
    }
    PendingSpan p;
    p.event = capture(c, INFINI_STATUS_SUCCESS);
    p.event.device_span = true;
    p.start = start_event;
    p.end = end;
    File &f = file();
    std::lock_guard<std::mutex> lock(f.mutex);
    f.pending.push_back(p);
}

void traceDeviceResolve(int type, int device) {
    const infinirtPluginTable_t &t = layerNext(type);
    std::vector<TraceEvent> done;
    File &f = file();
    {
        std::lock_guard<std::mutex> lock(f.mutex);
        const Anchor anchor = f.anchors[{type, device}];
        for (size_t i = 0; i < f.pending.size();) {
            PendingSpan &p = f.pending[i];
            if (p.event.type != type || static_cast<int>(p.event.value[0]) != device) {
                ++i;
                continue;
            }
            infinirtEventStatus_t s = INFINIRT_EVENT_NOT_READY;
            if (t.event_query(device, p.end, &s) != INFINI_STATUS_SUCCESS || s != INFINIRT_EVENT_COMPLETE) {
                ++i;
                continue;
            }
            float from_anchor = 0.0f;
            float length = 0.0f;
            if (t.event_elapsed_time(device, &from_anchor, anchor.event, p.start) == INFINI_STATUS_SUCCESS &&
                t.event_elapsed_time(device, &length, p.start, p.end) == INFINI_STATUS_SUCCESS) {
                p.event.start_ns = anchor.host_ns + static_cast<uint64_t>(static_cast<double>(from_anchor) * 1e6);
                p.event.dur_ns = static_cast<uint64_t>(static_cast<double>(length) * 1e6);
                done.push_back(p.event);
            }
            t.event_destroy(device, p.start);
            t.event_destroy(device, p.end);
            f.pending[i] = f.pending.back();
            f.pending.pop_back();
        }
    }
    for (const TraceEvent &e : done) {
        append(e);
    }
}

void traceExitFlush() {
    File &f = file();
    std::vector<Buffer *> buffers;
    {
        std::lock_guard<std::mutex> lock(f.mutex);
        if (f.closed) {
            return;
        }
        buffers = f.buffers;
    }
    for (Buffer *b : buffers) {
        std::lock_guard<std::mutex> lock(b->mutex);
        flushBuffer(*b);
    }
    std::lock_guard<std::mutex> lock(f.mutex);
    if (!f.pending.empty() || f.dropped_spans > 0) {
        logf(INFINIRT_LOG_WARN, "INFINIRT_TRACE_DEVICE: %zu device span(s) unresolved at exit (no synchronising call "
             "after them), %zu dropped", f.pending.size(), f.dropped_spans);
    }
    std::fprintf(f.out, "\n]}\n");
    std::fclose(f.out);
    f.out = nullptr;
    f.closed = true;
}

} // namespace infinirt
