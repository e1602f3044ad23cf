/*
 * The shared CUDA/HIP implementation (backends/gpu_common) over a fake vendor table: the rules
 * both plugins rely on, checked without a GPU (so in CI): when a call binds the device's context
 * and when it does not, the default stream, synchronous copies, event flags and timing rules,
 * capture-time event records, error details with figures, outputs untouched on failure, the
 * kernel rules (kernelParams, LOCAL offsets, attributes, symbols), and the table itself: every
 * entry inside the exception guard, the entry query of backends/common.
 */
#include "../../backends/gpu_common/gpu_backend.h"

#include "common/negotiate.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

/* The first 8 bytes at p, read without the address sanitizer's check: a VALUE argument may be
 * shorter (an int32_t on the test's stack); the tests only compare the words of POINTER and LOCAL
 * arguments, which are 8 bytes. */
__attribute__((no_sanitize("address"))) uint64_t firstWord(const void *p) {
    uint64_t word = 0;
    const unsigned char *bytes = static_cast<const unsigned char *>(p);
    for (size_t i = 0; i < sizeof word; ++i) {
        word |= static_cast<uint64_t>(bytes[i]) << (8 * i);
    }
    return word;
}

using infinirt::gpu::ContextScope;
using infinirt::gpu::NativeStatus;

constexpr NativeStatus kOutOfMemory = 2;
constexpr NativeStatus kNotFound = 500;
void *const kModule = reinterpret_cast<void *>(0x30);
void *const kFunction = reinterpret_cast<void *>(0x40);
/* Native attribute values of the fake vendor. */
enum FakeAttr { kMaxThreads = 10, kStaticShared, kLocalBytes, kNumRegs, kMaxDynamic, kWarpSize = 20, kOptinShared };
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
    /* Modules and launches: what the last launch saw (params copied during the call, each
     * pointee's first 8 bytes read then, as the driver would), and attribute answers. */
    size_t expect_params = 0;
    infinirt::gpu::NativeLaunch launch{};
    std::vector<void *> params;
    std::vector<uint64_t> param_words; // the first 8 bytes each param pointed at, read during the launch
    int static_shared = 1024, optin_limit = 99 * 1024, param_count = 3;
    NativeStatus param_count_rc = 0;
    std::vector<int> attrs_read;
    int set_attr = -1, set_value = -1;
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
           : code == kNotFound    ? INFINI_STATUS_SYMBOL_NOT_FOUND
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

    v.module_load = [](int, const infinirtModuleImage_t *, size_t, char *, size_t, void **m) {
        *m = kModule;
        return INFINI_STATUS_SUCCESS;
    };
    v.module_unload = {[](void *) { return answer("module_unload"); }, "fakeModuleUnload"};
    v.module_get_function = {[](void **f, void *, const char *name) {
                                 *f = kFunction;
                                 answer("get_function");
                                 return std::string(name) == "missing" ? kNotFound : 0;
                             },
                             "fakeGetFunction"};
    v.module_get_global = {[](void **p, size_t *size, void *, const char *name) {
                               *p = reinterpret_cast<void *>(0x60);
                               *size = 4;
                               answer("get_global");
                               return std::string(name) == "missing" ? kNotFound : 0;
                           },
                           "fakeGetGlobal"};
    v.not_found = kNotFound;
    v.module_list_functions = {[](void *, char *text, size_t capacity) {
                                   infinirt::common::copyString(text, capacity, "vector_add, saxpy");
                                   return 0;
                               },
                               "fakeList"};
    v.function_get_attribute = {[](int *value, int attr, void *) {
                                    fake.attrs_read.push_back(attr);
                                    *value = attr == kStaticShared ? fake.static_shared : attr * 100;
                                    return answer("func_attr");
                                },
                                "fakeFuncAttr"};
    v.function_set_attribute = {[](void *, int attr, int value) {
                                    fake.set_attr = attr;
                                    fake.set_value = value;
                                    return answer("func_set_attr");
                                },
                                "fakeFuncSetAttr"};
    v.function_param_count = {[](void *, int *count) {
                                  *count = fake.param_count;
                                  return fake.param_count_rc;
                              },
                              "fakeParamCount"};
    v.device_get_attribute = {[](int *value, int attr, int) {
                                  fake.attrs_read.push_back(attr);
                                  *value = attr == kOptinShared ? fake.optin_limit : 32;
                                  return answer("device_attr");
                              },
                              "fakeDeviceAttr"};
    v.func_attr_max_threads_per_block = kMaxThreads;
    v.func_attr_static_shared_bytes = kStaticShared;
    v.func_attr_local_bytes_per_thread = kLocalBytes;
    v.func_attr_num_registers = kNumRegs;
    v.func_attr_max_dynamic_shared = kMaxDynamic;
    v.device_attr_warp_size = kWarpSize;
    v.device_attr_max_shared_per_block = kOptinShared;
    static auto record_launch = [](const infinirt::gpu::NativeLaunch &l) {
        fake.launch = l;
        fake.params.assign(l.params, l.params + (l.params ? fake.expect_params : 0));
        fake.param_words.clear();
        for (void *p : fake.params) {
            fake.param_words.push_back(firstWord(p)); // now: LOCAL offsets live only during the launch
        }
    };
    v.launch_kernel = {[](void *function, const uint32_t *grid, const uint32_t *block, unsigned shared_bytes,
                          void *stream, void **params) {
                           infinirt::gpu::NativeLaunch l{};
                           l.function = function;
                           for (int d = 0; d < 3; ++d) {
                               l.grid[d] = grid[d];
                               l.block[d] = block[d];
                           }
                           l.shared_bytes = shared_bytes;
                           l.stream = stream;
                           l.params = params;
                           record_launch(l);
                           return answer("launch_kernel", stream);
                       },
                       "fakeLaunchKernel"};
    v.launch_kernel_ex = {[](const infinirt::gpu::NativeLaunch &l) {
                              record_launch(l);
                              return answer("launch_kernel_ex", l.stream);
                          },
                          "fakeLaunchKernelEx"};
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

/* ---- modules and kernels ---- */

infinirtLaunchConfig_t Config(uint32_t block_x, size_t dynamic_shared = 0) {
    infinirtLaunchConfig_t c{};
    c.struct_size = sizeof c;
    c.grid[0] = 4, c.grid[1] = 1, c.grid[2] = 1;
    c.block[0] = block_x, c.block[1] = 1, c.block[2] = 1;
    c.dynamic_shared_bytes = dynamic_shared;
    return c;
}

TEST_F(GpuCommon, AVendorWithModuleLoadGetsEveryModuleEntry) {
    EXPECT_NE(t->module_load, nullptr);
    EXPECT_NE(t->module_unload, nullptr);
    EXPECT_NE(t->module_get_kernel, nullptr);
    EXPECT_NE(t->module_get_global, nullptr);
    EXPECT_NE(t->kernel_get_attribute, nullptr);
    EXPECT_NE(t->kernel_set_attribute, nullptr);
    EXPECT_NE(t->launch_kernel, nullptr);
}

TEST(GpuCommonTable, AVendorWithoutModuleLoadHasNoModuleEntries) {
    static infinirt::gpu::VendorApi v = MakeVendor();
    v.module_load = nullptr;
    const infinirtPluginTable_t &table = infinirt::gpu::pluginTable(v);
    EXPECT_EQ(table.module_load, nullptr);
    EXPECT_EQ(table.module_get_kernel, nullptr);
    EXPECT_EQ(table.launch_kernel, nullptr);
    EXPECT_NE(table.stream_create, nullptr);
    infinirt::gpu::pluginTable(kVendor); /* the other tests' vendor */
}

TEST(GpuCommonTable, WithdrawnMemorySharingLeavesNoRegistrationMappingOrIpcEntries) {
    static infinirt::gpu::VendorApi v = MakeVendor();
    v.host_register = {[](void *, size_t, bool) { return 0; }, "fakeHostRegister"};
    v.mem_create = {[](void **, int, size_t, bool) { return 0; }, "fakeMemCreate"};
    v.ipc_get_mem_handle = {[](void *, void *) { return 0; }, "fakeIpcGetMemHandle"};
    v.ipc_get_event_handle = {[](void *, void *) { return 0; }, "fakeIpcGetEventHandle"};
    const infinirtPluginTable_t &table = infinirt::gpu::pluginTable(v);
    EXPECT_NE(table.host_register, nullptr);
    EXPECT_NE(table.mem_create, nullptr);
    EXPECT_NE(table.ipc_get_mem_handle, nullptr);
    EXPECT_NE(table.ipc_get_event_handle, nullptr);
    infinirt::gpu::withdrawMemorySharing();
    EXPECT_EQ(table.host_register, nullptr);
    EXPECT_EQ(table.host_unregister, nullptr);
    EXPECT_EQ(table.mem_create, nullptr);
    EXPECT_EQ(table.mem_map, nullptr);
    EXPECT_EQ(table.ipc_get_mem_handle, nullptr);
    EXPECT_EQ(table.ipc_open_mem_handle, nullptr);
    EXPECT_EQ(table.ipc_get_event_handle, nullptr);
    EXPECT_EQ(table.ipc_open_event_handle, nullptr);
    EXPECT_NE(table.malloc_device, nullptr);
    infinirt::gpu::pluginTable(kVendor);
}

/* The hot entries (query, record, copy, fill) call the native function directly on an explicit
 * stream; on the NULL stream they bind and name the default stream. */
TEST_F(GpuCommon, HotEntriesOnTheNullStreamBindAndUseTheDefaultStream) {
    void *event = nullptr;
    ASSERT_EQ(t->event_create(0, 0, &event), INFINI_STATUS_SUCCESS);
    fake = Fake{};
    char buf[4] = {};
    EXPECT_EQ(t->stream_query(0, nullptr), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(t->event_record(0, event, nullptr), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(t->memset_async(0, buf, 0, 4, nullptr), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.calls, (std::vector<std::string>{"stream_query", "record", "memset"}));
    EXPECT_EQ(fake.streams, (std::vector<void *>(3, kDefaultStream)));
    EXPECT_EQ(fake.binds, 3);
    EXPECT_EQ(fake.unbinds, 3);
    fake.next = kNotReady;
    EXPECT_EQ(t->stream_query(0, nullptr), INFINI_STATUS_NOT_READY) << "NOT_READY through the bound form too";
    EXPECT_EQ(fake.unbinds, 4);
    EXPECT_EQ(t->event_destroy(0, event), INFINI_STATUS_SUCCESS);
}

TEST_F(GpuCommon, AVendorWhoseHandleCallsBindBindsEveryHotEntry) {
    static infinirt::gpu::VendorApi binding = MakeVendor();
    binding.handle_calls_need_binding = true;
    const infinirtPluginTable_t *bt = nullptr;
    uint32_t version = 0;
    ASSERT_EQ(infinirt::common::negotiate(7, &kHost, &version, &bt, infinirt::gpu::pluginTable(binding)),
              INFINI_STATUS_SUCCESS);
    void *event = nullptr;
    ASSERT_EQ(bt->event_create(0, 0, &event), INFINI_STATUS_SUCCESS);
    fake = Fake{};
    char buf[4] = {};
    infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
    const infinirtLaunchConfig_t config = Config(32);
    EXPECT_EQ(bt->stream_query(0, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(bt->event_record(0, event, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(bt->event_query(0, event, &status), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(status, INFINIRT_EVENT_COMPLETE);
    EXPECT_EQ(bt->memcpy_async(0, buf, buf, 4, INFINIRT_MEMCPY_D2D, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(bt->memset_async(0, buf, 0, 4, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(bt->launch_kernel(0, kFunction, &config, nullptr, 0, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.calls, (std::vector<std::string>{"stream_query", "record", "event_query", "copy", "memset",
                                                    "launch_kernel"}));
    EXPECT_EQ(fake.binds, 6);
    EXPECT_EQ(fake.unbinds, 6);
    EXPECT_EQ(bt->event_destroy(0, event), INFINI_STATUS_SUCCESS);
}

TEST_F(GpuCommon, AFailedBindingStopsAHotCallOnTheNullStream) {
    void *event = nullptr;
    ASSERT_EQ(t->event_create(0, 0, &event), INFINI_STATUS_SUCCESS);
    fake = Fake{};
    fake.bind_status = INFINI_STATUS_DEVICE_NOT_INITIALIZED;
    char buf[4] = {};
    EXPECT_EQ(t->stream_query(0, nullptr), INFINI_STATUS_DEVICE_NOT_INITIALIZED);
    EXPECT_EQ(t->event_record(0, event, nullptr), INFINI_STATUS_DEVICE_NOT_INITIALIZED);
    EXPECT_EQ(t->memcpy_async(0, buf, buf, 4, INFINIRT_MEMCPY_H2H, nullptr), INFINI_STATUS_DEVICE_NOT_INITIALIZED);
    EXPECT_EQ(t->memset_async(0, buf, 0, 4, nullptr), INFINI_STATUS_DEVICE_NOT_INITIALIZED);
    EXPECT_TRUE(fake.calls.empty());
    EXPECT_EQ(fake.unbinds, 0);
    fake.bind_status = INFINI_STATUS_SUCCESS;
    EXPECT_EQ(t->event_destroy(0, event), INFINI_STATUS_SUCCESS);
}

TEST_F(GpuCommon, FailuresOfTheDirectCallsNameTheCallAndTheDevice) {
    void *event = nullptr;
    ASSERT_EQ(t->event_create(0, 0, &event), INFINI_STATUS_SUCCESS);
    char buf[4] = {};
    infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
    fake.next = 7;
    EXPECT_EQ(t->stream_query(0, kStream), INFINI_STATUS_DRIVER_ERROR);
    EXPECT_EQ(fake.detail, "fakeStreamQuery failed: FAKE_ERROR (7) while querying a stream of fake:0");
    fake.next = 7;
    EXPECT_EQ(t->event_record(0, event, kStream), INFINI_STATUS_DRIVER_ERROR);
    EXPECT_EQ(fake.detail, "fakeRecord failed: FAKE_ERROR (7) while recording an event on a stream of fake:0");
    fake.next = 7;
    EXPECT_EQ(t->event_query(0, event, &status), INFINI_STATUS_DRIVER_ERROR);
    EXPECT_EQ(status, INFINIRT_EVENT_NOT_READY) << "no output on failure";
    fake.next = 7;
    EXPECT_EQ(t->memcpy_async(0, buf, buf, 4, INFINIRT_MEMCPY_D2D, kStream), INFINI_STATUS_DRIVER_ERROR);
    EXPECT_NE(fake.detail.find("while copying 4 B (kind 3) on fake:0"), std::string::npos) << fake.detail;
    fake.next = 7;
    EXPECT_EQ(t->memset_async(0, buf, 0, 4, kStream), INFINI_STATUS_DRIVER_ERROR);
    EXPECT_NE(fake.detail.find("while setting 4 B on fake:0"), std::string::npos) << fake.detail;
    EXPECT_EQ(t->event_destroy(0, event), INFINI_STATUS_SUCCESS);
}

TEST_F(GpuCommon, ValueAndPointerArgumentsArePassedByTheirValuePointers) {
    float a = 1.5f;
    void *device_ptr = reinterpret_cast<void *>(0xdead0);
    int32_t n = 7;
    const infinirtKernelArg_t args[] = {{INFINIRT_KERNEL_ARG_VALUE, sizeof a, &a},
                                        {INFINIRT_KERNEL_ARG_POINTER, sizeof(void *), &device_ptr},
                                        {INFINIRT_KERNEL_ARG_VALUE, sizeof n, &n}};
    const infinirtLaunchConfig_t config = Config(256, 100);
    fake.expect_params = 3;
    ASSERT_EQ(t->launch_kernel(0, kFunction, &config, args, 3, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.calls, (std::vector<std::string>{"launch_kernel"}));
    EXPECT_EQ(fake.launch.function, kFunction);
    EXPECT_EQ(fake.params, (std::vector<void *>{&a, &device_ptr, &n}));
    EXPECT_EQ(fake.param_words.at(1), 0xdead0u) << "a POINTER argument's param points at the device address";
    EXPECT_EQ(fake.launch.shared_bytes, 100u) << "without LOCAL arguments, dynamic_shared_bytes as given";
    EXPECT_EQ(fake.launch.grid[0], 4u);
    EXPECT_EQ(fake.launch.block[0], 256u);
    EXPECT_EQ(fake.launch.cluster[0], 0u);
    EXPECT_FALSE(fake.launch.cooperative);
}

TEST_F(GpuCommon, LocalArgumentsAreOffsetsAfterDynamicSharedMemoryAlignedTo16) {
    int32_t n = 3;
    const infinirtKernelArg_t args[] = {{INFINIRT_KERNEL_ARG_LOCAL, 8, nullptr},
                                        {INFINIRT_KERNEL_ARG_VALUE, sizeof n, &n},
                                        {INFINIRT_KERNEL_ARG_LOCAL, 40, nullptr},
                                        {INFINIRT_KERNEL_ARG_LOCAL, 1, nullptr}};
    const infinirtLaunchConfig_t config = Config(64, 100);
    fake.expect_params = 4;
    ASSERT_EQ(t->launch_kernel(0, kFunction, &config, args, 4, kStream), INFINI_STATUS_SUCCESS);
    /* 100 -> 112 (8 bytes, ends 120) -> 128 (40 bytes, ends 168) -> 176 (1 byte, ends 177). */
    EXPECT_EQ(fake.param_words.at(0), 112u);
    EXPECT_EQ(fake.params[1], &n);
    EXPECT_EQ(fake.param_words.at(2), 128u);
    EXPECT_EQ(fake.param_words.at(3), 176u);
    EXPECT_EQ(fake.launch.shared_bytes, 177u) << "the launch's shared memory ends with the last LOCAL argument";

    const infinirtLaunchConfig_t no_dynamic = Config(64, 0);
    fake.expect_params = 1;
    ASSERT_EQ(t->launch_kernel(0, kFunction, &no_dynamic, args, 1, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.param_words.at(0), 0u);
    EXPECT_EQ(fake.launch.shared_bytes, 8u);
}

TEST_F(GpuCommon, ManyArgumentsAndNoArgumentsLaunch) {
    std::vector<int32_t> values(100);
    std::vector<infinirtKernelArg_t> args(100);
    for (size_t i = 0; i < values.size(); ++i) {
        values[i] = static_cast<int32_t>(i);
        args[i] = {INFINIRT_KERNEL_ARG_VALUE, sizeof(int32_t), &values[i]};
    }
    args[99] = {INFINIRT_KERNEL_ARG_LOCAL, 16, nullptr};
    const infinirtLaunchConfig_t config = Config(32, 4);
    fake.expect_params = 100;
    ASSERT_EQ(t->launch_kernel(0, kFunction, &config, args.data(), 100, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.params[98], &values[98]);
    EXPECT_EQ(fake.param_words.at(99), 16u);
    EXPECT_EQ(fake.launch.shared_bytes, 32u);

    fake.expect_params = 0;
    ASSERT_EQ(t->launch_kernel(0, kFunction, &config, nullptr, 0, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.launch.params, nullptr);
}

TEST_F(GpuCommon, LaunchOnAnExplicitStreamDoesNotBindAndNullIsTheDefaultStream) {
    const infinirtLaunchConfig_t config = Config(32);
    ASSERT_EQ(t->launch_kernel(0, kFunction, &config, nullptr, 0, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.binds, 0);
    ASSERT_EQ(t->launch_kernel(0, kFunction, &config, nullptr, 0, nullptr), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.binds, 1);
    EXPECT_EQ(fake.unbinds, 1);
    EXPECT_EQ(fake.streams, (std::vector<void *>{kStream, kDefaultStream}));
}

TEST_F(GpuCommon, ClusterAndCooperativeLaunchesUseTheExtendedLaunch) {
    infinirtLaunchConfig_t config = Config(32);
    config.cluster[0] = 2;
    ASSERT_EQ(t->launch_kernel(0, kFunction, &config, nullptr, 0, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.calls.back(), "launch_kernel_ex");
    EXPECT_EQ(fake.launch.cluster[0], 2u);
    EXPECT_EQ(fake.launch.cluster[1], 1u) << "a zero component of a cluster is 1";
    EXPECT_EQ(fake.launch.cluster[2], 1u);
    EXPECT_FALSE(fake.launch.cooperative);

    config = Config(32);
    config.flags = INFINIRT_LAUNCH_COOPERATIVE;
    ASSERT_EQ(t->launch_kernel(0, kFunction, &config, nullptr, 0, kStream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.calls.back(), "launch_kernel_ex");
    EXPECT_TRUE(fake.launch.cooperative);
    EXPECT_EQ(fake.launch.cluster[0], 0u);
}

TEST(GpuCommonTable, WithoutAnExtendedLaunchCooperativeLaunchesAreNotImplemented) {
    static infinirt::gpu::VendorApi v = MakeVendor();
    v.launch_kernel_ex = {nullptr, "fakeLaunchKernelEx"};
    const infinirtPluginTable_t &table = infinirt::gpu::pluginTable(v);
    infinirtLaunchConfig_t config = Config(32);
    config.flags = INFINIRT_LAUNCH_COOPERATIVE;
    fake = Fake{};
    EXPECT_EQ(table.launch_kernel(0, kFunction, &config, nullptr, 0, kStream), INFINI_STATUS_NOT_IMPLEMENTED);
    EXPECT_TRUE(fake.calls.empty());
    infinirt::gpu::pluginTable(kVendor);
}

TEST_F(GpuCommon, LaunchFailureNamesTheCallAndTheFigures) {
    infinirtLaunchConfig_t config = Config(1024, 48);
    fake.next = 77;
    EXPECT_EQ(t->launch_kernel(0, kFunction, &config, nullptr, 0, kStream), INFINI_STATUS_DRIVER_ERROR);
    EXPECT_EQ(fake.detail, "fakeLaunchKernel failed: FAKE_ERROR (77) while launching a kernel on fake:0 (grid 4x1x1, "
                           "block 1024x1x1, cluster 0x0x0, 48 bytes of dynamic shared memory, 0 arguments)");
    config.dynamic_shared_bytes = size_t(1) << 33;
    EXPECT_EQ(t->launch_kernel(0, kFunction, &config, nullptr, 0, kStream), INFINI_STATUS_BAD_PARAM);
}

TEST_F(GpuCommon, MissingKernelsAndGlobalsAreSymbolNotFoundNamingThem) {
    void *kernel = reinterpret_cast<void *>(0x1);
    EXPECT_EQ(t->module_get_kernel(0, kModule, "missing", &kernel), INFINI_STATUS_SYMBOL_NOT_FOUND);
    EXPECT_EQ(kernel, reinterpret_cast<void *>(0x1));
    EXPECT_EQ(fake.detail, "no kernel 'missing' in the module on fake:0; it has vector_add, saxpy");
    ASSERT_EQ(t->module_get_kernel(0, kModule, "vector_add", &kernel), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(kernel, kFunction);

    void *ptr = reinterpret_cast<void *>(0x1);
    size_t size = 0;
    EXPECT_EQ(t->module_get_global(0, kModule, "missing", &ptr, &size), INFINI_STATUS_SYMBOL_NOT_FOUND);
    EXPECT_EQ(fake.detail, "no global 'missing' in the module on fake:0");
    EXPECT_EQ(ptr, reinterpret_cast<void *>(0x1));
    ASSERT_EQ(t->module_get_global(0, kModule, "g_value", &ptr, &size), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(ptr, reinterpret_cast<void *>(0x60));
    EXPECT_EQ(size, 4u);
    EXPECT_EQ(t->module_get_global(0, kModule, "g_value", &ptr, nullptr), INFINI_STATUS_SUCCESS) << "size may be NULL";
}

TEST_F(GpuCommon, AttributesReadTheirNativeAttributes) {
    int64_t value = 0;
    const struct {
        infinirtKernelAttribute_t attr;
        int native;
    } cases[] = {{INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK, kMaxThreads},
                 {INFINIRT_KERNEL_ATTR_PRIVATE_BYTES_PER_THREAD, kLocalBytes},
                 {INFINIRT_KERNEL_ATTR_NUM_REGISTERS, kNumRegs},
                 {INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, kMaxDynamic}};
    for (const auto &c : cases) {
        fake.attrs_read.clear();
        ASSERT_EQ(t->kernel_get_attribute(0, kFunction, c.attr, &value), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(fake.attrs_read, std::vector<int>{c.native});
        EXPECT_EQ(value, c.native * 100);
    }
    ASSERT_EQ(t->kernel_get_attribute(0, kFunction, INFINIRT_KERNEL_ATTR_STATIC_SHARED_BYTES, &value),
              INFINI_STATUS_SUCCESS);
    EXPECT_EQ(value, 1024);
    ASSERT_EQ(t->kernel_get_attribute(0, kFunction, INFINIRT_KERNEL_ATTR_PREFERRED_BLOCK_MULTIPLE, &value),
              INFINI_STATUS_SUCCESS);
    EXPECT_EQ(value, 32) << "the device's warp size";
    ASSERT_EQ(t->kernel_get_attribute(0, kFunction, INFINIRT_KERNEL_ATTR_NUM_PARAMS, &value), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(value, 3);
    fake.param_count_rc = 77;
    ASSERT_EQ(t->kernel_get_attribute(0, kFunction, INFINIRT_KERNEL_ATTR_NUM_PARAMS, &value), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(value, -1) << "a driver that cannot count parameters leaves the count unknown";

    value = 5;
    fake.next = 77;
    EXPECT_EQ(t->kernel_get_attribute(0, kFunction, INFINIRT_KERNEL_ATTR_NUM_REGISTERS, &value),
              INFINI_STATUS_DRIVER_ERROR);
    EXPECT_EQ(value, 5);
    EXPECT_NE(fake.detail.find("fakeFuncAttr failed"), std::string::npos) << fake.detail;
}

TEST_F(GpuCommon, DynamicSharedMemoryIsRaisedUpToTheOptInLimitLessStaticMemory) {
    const int64_t room = 99 * 1024 - 1024;
    ASSERT_EQ(t->kernel_set_attribute(0, kFunction, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, room),
              INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.set_attr, kMaxDynamic);
    EXPECT_EQ(fake.set_value, room);
    fake.set_value = -1;
    EXPECT_EQ(t->kernel_set_attribute(0, kFunction, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, room + 1),
              INFINI_STATUS_BAD_PARAM);
    EXPECT_EQ(fake.set_value, -1);
    EXPECT_EQ(fake.detail, "100353 bytes of dynamic shared memory asked for a kernel on fake:0: a block may use 101376 "
                           "bytes of shared memory, of which the kernel's static shared memory takes 1024, leaving "
                           "100352");
    EXPECT_EQ(t->kernel_set_attribute(0, kFunction, INFINIRT_KERNEL_ATTR_NUM_REGISTERS, 1), INFINI_STATUS_BAD_PARAM);
}

TEST_F(GpuCommon, UnloadWaitsForTheDeviceFirst) {
    ASSERT_EQ(t->module_unload(0, kModule), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(fake.calls, (std::vector<std::string>{"sync_device", "module_unload"}));
    EXPECT_EQ(fake.binds, 1);
}

TEST(GpuCommonHelpers, PciBusIdIsSpelledInLowerCase) {
    infinirtDeviceProperties_t props{};
    infinirt::gpu::setPciBusId(&props, "0000:3B:00.0");
    EXPECT_STREQ(props.pci_bus_id, "0000:3b:00.0");
}

} // namespace
