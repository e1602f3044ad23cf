/*
 * The shared CUDA/HIP implementation (backends/gpu_common) over a fake vendor table: the rules
 * both plugins rely on, checked without a GPU (so in CI): when a call binds the device's context
 * and when it does not, the default stream, synchronous copies, event flags and timing rules,
 * capture-time event records, error details with figures, outputs untouched on failure, and
 * the table itself: every entry inside the exception guard, the entry query of backends/common.
 */
#include "../../backends/gpu_common/gpu_backend.h"

#include "common/negotiate.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace {

using infinirt::gpu::ContextScope;
using infinirt::gpu::NativeStatus;

constexpr NativeStatus kOutOfMemory = 2;
constexpr NativeStatus kNotReady = 600;
void *const kDefaultStream = reinterpret_cast<void *>(0xd5);
void *const kStream = reinterpret_cast<void *>(0x51);

/* What the fake vendor saw, in order; and knobs for what it answers. */
struct Fake {
    std::vector<std::string> calls;
    std::vector<void *> streams;
    int binds = 0, unbinds = 0;
    infiniStatus_t bind_status = INFINI_STATUS_SUCCESS;
    NativeStatus next = 0;
    unsigned event_flags = 0, stream_flags = 0;
    bool capturing = false;
    bool throw_next = false;
    std::string detail;
} fake;

NativeStatus answer(const char *call, void *stream = nullptr) {
    if (fake.throw_next) {
        fake.throw_next = false;
        throw std::runtime_error("fake vendor exception");
    }
    fake.calls.push_back(call);
    fake.streams.push_back(stream);
    NativeStatus rc = fake.next;
    fake.next = 0;
    return rc;
}

const char *error_name(NativeStatus code) {
    return code == kOutOfMemory ? "FAKE_OUT_OF_MEMORY" : code == kNotReady ? "FAKE_NOT_READY" : "FAKE_ERROR";
}
infiniStatus_t to_status(NativeStatus code) {
    return code == 0              ? INFINI_STATUS_SUCCESS
           : code == kOutOfMemory ? INFINI_STATUS_OUT_OF_MEMORY
           : code == kNotReady    ? INFINI_STATUS_NOT_READY
                                  : INFINI_STATUS_DRIVER_ERROR;
}
infiniStatus_t bind(int, ContextScope *scope) {
    if (fake.bind_status == INFINI_STATUS_SUCCESS) {
        ++fake.binds;
        scope->action = 1;
    }
    return fake.bind_status;
}
void unbind(const ContextScope &scope) { fake.unbinds += scope.action; }

infinirtPluginHost_t MakeHost() {
    infinirtPluginHost_t h{};
    h.struct_size = sizeof h;
    h.version = 1;
    h.set_error = [](const char *m) { fake.detail = m; };
    h.log = [](infinirtLogLevel_t, const char *) {};
    return h;
}
const infinirtPluginHost_t kHost = MakeHost();

infinirt::gpu::VendorApi MakeVendor() {
    infinirt::gpu::VendorApi v{};
    v.name = "fake";
    v.device_type = INFINI_DEVICE_AMD;
    v.init = [] { return INFINI_STATUS_SUCCESS; };
    v.error_name = error_name;
    v.to_status = to_status;
    v.not_ready = kNotReady;
    v.bind = bind;
    v.unbind = unbind;
    v.default_stream = kDefaultStream;
    v.stream_non_blocking = 0x8;
    v.event_disable_timing = 0x10;
    v.event_blocking_sync = 0x20;
    v.device_synchronize = {[] { return answer("sync_device"); }, "fakeSync"};
    v.mem_get_info = {[](size_t *f, size_t *t) {
                          *f = size_t(1) << 30;
                          *t = size_t(2) << 30;
                          return answer("mem_info");
                      },
                      "fakeMemInfo"};
    v.pool_reserved = {[](int, uint64_t *b) {
                           *b = 4096;
                           return answer("pool");
                       },
                       "fakePool"};
    v.stream_create = {[](void **s, unsigned flags) {
                           fake.stream_flags = flags;
                           *s = kStream;
                           return answer("stream_create");
                       },
                       "fakeStreamCreate"};
    v.stream_destroy = {[](void *s) { return answer("stream_destroy", s); }, "fakeStreamDestroy"};
    v.stream_synchronize = {[](void *s) { return answer("stream_sync", s); }, "fakeStreamSync"};
    v.stream_query = {[](void *s) { return answer("stream_query", s); }, "fakeStreamQuery"};
    v.stream_wait_event = {[](void *s, void *) { return answer("wait", s); }, "fakeWait"};
    v.event_create = {[](void **e, unsigned flags) {
                          fake.event_flags = flags;
                          *e = reinterpret_cast<void *>(0xe);
                          return answer("event_create");
                      },
                      "fakeEventCreate"};
    v.event_destroy = {[](void *) { return answer("event_destroy"); }, "fakeEventDestroy"};
    v.event_record = {[](void *, void *s) { return answer("record", s); }, "fakeRecord"};
    v.event_record_in_capture = {[](void *, void *s) { return answer("record_node", s); }, "fakeRecordNode"};
    v.stream_is_capturing = {[](void *, bool *c) {
                                 *c = fake.capturing;
                                 return 0;
                             },
                             "fakeIsCapturing"};
    v.event_query = {[](void *) { return answer("event_query"); }, "fakeEventQuery"};
    v.event_synchronize = {[](void *) { return answer("event_sync"); }, "fakeEventSync"};
    v.event_elapsed_time = {[](float *ms, void *, void *) {
                                *ms = 1.5f;
                                return answer("elapsed");
                            },
                            "fakeElapsed"};
    v.malloc_device = {[](void **p, size_t) {
                           *p = reinterpret_cast<void *>(0xd0);
                           return answer("malloc");
                       },
                       "fakeAlloc"};
    v.free_device = {[](void *) { return answer("free"); }, "fakeFree"};
    v.malloc_host = {[](void **p, size_t) {
                         *p = reinterpret_cast<void *>(0xb0);
                         return answer("malloc_host");
                     },
                     "fakeHostAlloc"};
    v.free_host = {[](void *) { return answer("free_host"); }, "fakeHostFree"};
    v.memcpy_async = {[](void *, const void *, size_t, infinirtMemcpyKind_t, void *s) { return answer("copy", s); },
                      "fakeCopy"};
    v.memset_async = {[](void *, int, size_t, void *s) { return answer("memset", s); }, "fakeMemset"};
    v.malloc_async = {[](void **p, size_t, void *s) {
                          *p = reinterpret_cast<void *>(0xa0);
                          return answer("malloc_async", s);
                      },
                      "fakeAllocAsync"};
    v.free_async = {[](void *, void *s) { return answer("free_async", s); }, "fakeFreeAsync"};
    v.begin_capture = {[](void *s, int) { return answer("begin_capture", s); }, "fakeBeginCapture"};
    v.end_capture = {[](void *s, void **g) {
                         *g = reinterpret_cast<void *>(0x9);
                         return answer("end_capture", s);
                     },
                     "fakeEndCapture"};
    v.graph_destroy = {[](void *) { return answer("graph_destroy"); }, "fakeGraphDestroy"};
    v.graph_instantiate = {[](void **x, void *) {
                               *x = reinterpret_cast<void *>(0x7);
                               return answer("instantiate");
                           },
                           "fakeInstantiate"};
    v.graph_exec_destroy = {[](void *) { return answer("exec_destroy"); }, "fakeExecDestroy"};
    v.graph_launch = {[](void *, void *s) { return answer("launch", s); }, "fakeLaunch"};
    return v;
}
const infinirt::gpu::VendorApi kVendor = MakeVendor();

class GpuCommon : public ::testing::Test {
protected:
    void SetUp() override {
        uint32_t version = 0;
        /* What the plugins' entry (INFINIRT_COMMON_DEFINE_PLUGIN_ENTRY) does. */
        ASSERT_EQ(infinirt::common::negotiate(7, &kHost, &version, &t, infinirt::gpu::pluginTable(kVendor)),
                  INFINI_STATUS_SUCCESS);
        ASSERT_EQ(version, INFINIRT_PLUGIN_INTERFACE_VERSION);
        fake = Fake{};
    }
    const infinirtPluginTable_t *t = nullptr;
};

TEST_F(GpuCommon, TableNamesTheVendorAndFillsEveryGenericEntry) {
    EXPECT_STREQ(t->name, "fake");
    EXPECT_EQ(t->device_type, INFINI_DEVICE_AMD);
    EXPECT_EQ(t->struct_size, sizeof(infinirtPluginTable_t));
    EXPECT_NE(t->memcpy_sync, nullptr);
    EXPECT_NE(t->stream_begin_capture, nullptr);
    EXPECT_NE(t->event_get_native, nullptr);
    EXPECT_EQ(t->pointer_get_attributes, nullptr) << "a vendor without it leaves it to the loader";
}

TEST_F(GpuCommon, AnExceptionInsideAnEntryBecomesAStatusWithADetail) {
    fake.throw_next = true;
    void *s = reinterpret_cast<void *>(0x1);
    EXPECT_EQ(t->stream_create(0, &s), INFINI_STATUS_INTERNAL_ERROR);
    EXPECT_EQ(s, reinterpret_cast<void *>(0x1));
    EXPECT_NE(fake.detail.find("streamCreate"), std::string::npos) << fake.detail;
    EXPECT_NE(fake.detail.find("fake vendor exception"), std::string::npos) << fake.detail;
    EXPECT_EQ(fake.unbinds, fake.binds) << "the binding is undone on the way out";
}

TEST_F(GpuCommon, NullStreamIsTheDefaultStreamAndBinds) {
    char buf[4] = {};
    ASSERT_EQ(t->memcpy_async(0, buf, buf, 4, INFINIRT_MEMCPY_H2H, nullptr), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(fake.streams.size(), 1u);
    EXPECT_EQ(fake.streams[0], kDefaultStream);
    EXPECT_EQ(fake.binds, 1);
    EXPECT_EQ(fake.unbinds, 1);
}

TEST_F(GpuCommon, CallsOnExplicitHandlesDoNotBind) {
    void *event = nullptr;
    ASSERT_EQ(t->event_create(0, 0, &event), INFINI_STATUS_SUCCESS);
    const int after_create = fake.binds;
    infinirtEventStatus_t status;
    char buf[4] = {};
    EXPECT_EQ(t->event_record(0, event, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(t->event_query(0, event, &status), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(t->stream_query(0, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(t->memcpy_async(0, buf, buf, 4, INFINIRT_MEMCPY_D2D, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(t->stream_synchronize(0, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.binds, after_create);
    EXPECT_EQ(t->event_destroy(0, event), INFINI_STATUS_SUCCESS);
}

TEST_F(GpuCommon, SynchronousCopiesAndMemsetsRunOnTheDefaultStreamAndWait) {
    char buf[4] = {};
    ASSERT_EQ(t->memcpy_sync(0, buf, buf, 4, INFINIRT_MEMCPY_DEFAULT), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(t->memset_sync(0, buf, 1, 4), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.calls, (std::vector<std::string>{"copy", "stream_sync", "memset", "stream_sync"}));
    EXPECT_EQ(fake.streams, (std::vector<void *>{kDefaultStream, kDefaultStream, kDefaultStream, kDefaultStream}));
}

TEST_F(GpuCommon, FreeWaitsForTheDeviceFirst) {
    ASSERT_EQ(t->free_device(0, reinterpret_cast<void *>(0xd0)), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.calls, (std::vector<std::string>{"sync_device", "free"}));
}

TEST_F(GpuCommon, StreamsAreNonBlockingAndDestroyDrainsFirst) {
    void *s = nullptr;
    ASSERT_EQ(t->stream_create(0, &s), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(s, kStream);
    EXPECT_EQ(fake.stream_flags, 0x8u);
    ASSERT_EQ(t->stream_destroy(0, s), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.calls, (std::vector<std::string>{"stream_create", "stream_sync", "stream_destroy"}));
}

TEST_F(GpuCommon, EventFlagsAreMappedToNativeOnes) {
    void *e = nullptr;
    ASSERT_EQ(t->event_create(0, INFINIRT_EVENT_DISABLE_TIMING | INFINIRT_EVENT_BLOCKING_SYNC, &e),
              INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.event_flags, 0x30u);
    void *native = nullptr;
    ASSERT_EQ(t->event_get_native(0, e, &native), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(native, reinterpret_cast<void *>(0xe));
    EXPECT_EQ(t->event_destroy(0, e), INFINI_STATUS_SUCCESS);
}

TEST_F(GpuCommon, ElapsedTimeFollowsTheContract) {
    void *timed = nullptr, *untimed = nullptr, *other = nullptr;
    ASSERT_EQ(t->event_create(0, 0, &timed), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(t->event_create(0, 0, &other), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(t->event_create(0, INFINIRT_EVENT_DISABLE_TIMING, &untimed), INFINI_STATUS_SUCCESS);
    float ms = -1.0f;
    EXPECT_EQ(t->event_elapsed_time(0, &ms, timed, other), INFINI_STATUS_BAD_PARAM) << "never recorded";
    ASSERT_EQ(t->event_record(0, timed, kStream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(t->event_record(0, other, kStream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(t->event_record(0, untimed, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(t->event_elapsed_time(0, &ms, timed, untimed), INFINI_STATUS_BAD_PARAM) << "DISABLE_TIMING";
    fake.next = kNotReady;
    EXPECT_EQ(t->event_elapsed_time(0, &ms, timed, other), INFINI_STATUS_NOT_READY);
    EXPECT_EQ(ms, -1.0f) << "outputs are written only on success";
    EXPECT_EQ(t->event_elapsed_time(0, &ms, timed, other), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(ms, 1.5f);
    for (void *e : {timed, untimed, other}) {
        EXPECT_EQ(t->event_destroy(0, e), INFINI_STATUS_SUCCESS);
    }
}

TEST_F(GpuCommon, NotReadyIsAnAnswerNotAFailure) {
    fake.next = kNotReady;
    EXPECT_EQ(t->stream_query(0, kStream), INFINI_STATUS_NOT_READY);
    void *e = nullptr;
    ASSERT_EQ(t->event_create(0, 0, &e), INFINI_STATUS_SUCCESS);
    infinirtEventStatus_t status = INFINIRT_EVENT_COMPLETE;
    fake.next = kNotReady;
    EXPECT_EQ(t->event_query(0, e, &status), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(status, INFINIRT_EVENT_NOT_READY);
    EXPECT_EQ(t->event_destroy(0, e), INFINI_STATUS_SUCCESS);
}

TEST_F(GpuCommon, OutOfMemoryDetailCarriesTheCallTheErrorAndTheFigures) {
    void *p = reinterpret_cast<void *>(0x1);
    fake.next = kOutOfMemory;
    EXPECT_EQ(t->malloc_device(0, &p, size_t(2) << 40), INFINI_STATUS_OUT_OF_MEMORY);
    EXPECT_EQ(p, reinterpret_cast<void *>(0x1));
    EXPECT_EQ(fake.detail, "fakeAlloc failed: FAKE_OUT_OF_MEMORY (2) while allocating 2.0 TiB of device memory on "
                           "fake:0, 1.0 GiB free");
}

TEST_F(GpuCommon, FailedBindingStopsTheCall) {
    fake.bind_status = INFINI_STATUS_DEVICE_NOT_INITIALIZED;
    void *p = reinterpret_cast<void *>(0x1);
    EXPECT_EQ(t->malloc_device(0, &p, 16), INFINI_STATUS_DEVICE_NOT_INITIALIZED);
    EXPECT_TRUE(fake.calls.empty());
    EXPECT_EQ(fake.unbinds, 0);
    EXPECT_EQ(p, reinterpret_cast<void *>(0x1));
}

TEST_F(GpuCommon, AnEventRecordedWhileItsStreamCapturesBecomesANode) {
    void *e = nullptr, *graph = nullptr;
    ASSERT_EQ(t->event_create(0, 0, &e), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(t->stream_begin_capture(0, kStream, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL), INFINI_STATUS_SUCCESS);
    fake.capturing = true;
    ASSERT_EQ(t->event_record(0, e, kStream), INFINI_STATUS_SUCCESS);
    fake.capturing = false;
    ASSERT_EQ(t->stream_end_capture(0, kStream, &graph), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(t->event_record(0, e, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.calls, (std::vector<std::string>{"event_create", "begin_capture", "record_node", "end_capture",
                                                    "record"}));
    EXPECT_EQ(t->stream_begin_capture(0, nullptr, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL), INFINI_STATUS_BAD_PARAM)
        << "the default stream cannot be captured";
    EXPECT_EQ(t->event_destroy(0, e), INFINI_STATUS_SUCCESS);
}

TEST_F(GpuCommon, InstantiationFailureFillsTheLog) {
    void *exec = reinterpret_cast<void *>(0x1);
    char log[128] = "";
    fake.next = 77;
    EXPECT_EQ(t->graph_instantiate(0, &exec, reinterpret_cast<void *>(0x9), log, sizeof log),
              INFINI_STATUS_DRIVER_ERROR);
    EXPECT_STREQ(log, "fakeInstantiate failed: FAKE_ERROR (77)");
    EXPECT_EQ(exec, reinterpret_cast<void *>(0x1));
}

TEST_F(GpuCommon, SnapshotFillsTheMemoryFields) {
    infinirtDeviceResourceSnapshot_t s{};
    ASSERT_EQ(t->get_resource_snapshot(0, &s), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(s.valid_fields & INFINIRT_RESOURCE_FIELD_MEMORY_CAPACITY, uint64_t(INFINIRT_RESOURCE_FIELD_MEMORY_CAPACITY));
    EXPECT_EQ(s.free_bytes, size_t(1) << 30);
    EXPECT_EQ(s.total_bytes, size_t(2) << 30);
    EXPECT_EQ(s.used_bytes, size_t(1) << 30);
    EXPECT_EQ(s.reserved_bytes, 4096u);
}

TEST(GpuCommonHelpers, PciBusIdIsSpelledInLowerCase) {
    infinirtDeviceProperties_t props{};
    infinirt::gpu::setPciBusId(&props, "0000:3B:00.0");
    EXPECT_STREQ(props.pci_bus_id, "0000:3b:00.0");
}

} // namespace
