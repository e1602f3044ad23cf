// Suite ArgumentLog: only the logging stub is loaded (INFINIRT_PLUGINS). Every assertion reads
// the stub's own record of what it received, so these tests check what the loader passes across
// the plugin boundary: device indices, sizes, pointers, stream and event objects, NULL for the
// default stream, native handles; and what it keeps from plugins (validation, capture).
#include "loader_test_util.h"
#include "status_assertions.h"

#include <cstring>

namespace infinirt_loader_test {
namespace {

constexpr infiniDevice_t kStub = INFINI_DEVICE_CAMBRICON;

class ArgumentLog : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_OK(infinirtSetDevice(kStub, 0));
        log_ = StubLog(); // the plugin is loaded now
        ASSERT_TRUE(log_.IsOpen()) << "the logging stub at " STUB_LOGGING_PATH " is not loaded";
        log_.Clear();
    }

    // The one log line starting with `prefix`; fails the test unless there is exactly one.
    std::string Only(const std::string &prefix) {
        const std::vector<std::string> lines = log_.LinesStartingWith(prefix);
        EXPECT_EQ(lines.size(), 1u) << "lines starting with \"" << prefix << "\" in:\n" << log_.Text();
        return lines.empty() ? "" : lines.front();
    }

    // The object name ("S12", "E3") a create call returned, from "... -> S12".
    std::string CreatedName(const std::string &line) {
        const size_t arrow = line.find("-> ");
        return arrow == std::string::npos ? "" : line.substr(arrow + 3);
    }

    StubLog log_;
};

TEST_F(ArgumentLog, SetDevicePassesTheIndex) {
    ASSERT_OK(infinirtSetDevice(kStub, 1));
    EXPECT_EQ(Only("set_device"), "set_device device=1");
}

// A plugin refusing set_device leaves the thread's current device as it was.
TEST_F(ArgumentLog, FailedPluginSetDeviceKeepsTheCurrentDevice) {
    log_.FailNextSetDevice();
    const infiniStatus_t status = infinirtSetDevice(kStub, 1);
    const std::string message = infinirtGetLastErrorMessage();
    EXPECT_EQ(status, INFINI_STATUS_DRIVER_ERROR);
    EXPECT_NE(message.find("marker 6020"), std::string::npos) << message;
    infiniDevice_t type = INFINI_DEVICE_TYPE_COUNT;
    int id = -1;
    ASSERT_OK(infinirtGetDevice(&type, &id));
    EXPECT_EQ(type, kStub);
    EXPECT_EQ(id, 0);
    EXPECT_OK(infinirtSetDevice(kStub, 1));
}

TEST_F(ArgumentLog, AllocationSizesAndPointers) {
    ASSERT_OK(infinirtSetDevice(kStub, 1));
    // The device's first allocation reserves the staging of copies between devices (two
    // malloc_host of 8 MiB, infinirtMemcpyPeer): made before the log is cleared.
    void *first = nullptr;
    ASSERT_OK(infinirtMalloc(&first, 1));
    ASSERT_OK(infinirtFree(first));
    log_.Clear();
    void *d = nullptr;
    ASSERT_OK(infinirtMalloc(&d, 12345));
    EXPECT_EQ(Only("malloc_device"), "malloc_device device=1 size=12345 -> " + PointerText(d));
    void *h = nullptr;
    ASSERT_OK(infinirtMallocHost(&h, 4242));
    EXPECT_EQ(Only("malloc_host"), "malloc_host device=1 size=4242 -> " + PointerText(h));
    ASSERT_OK(infinirtSetDevice(kStub, 0));
    ASSERT_OK(infinirtFree(d));
    EXPECT_EQ(Only("free_device"), "free_device device=1 ptr=" + PointerText(d));
    ASSERT_OK(infinirtFreeHost(h));
    EXPECT_EQ(Only("free_host"), "free_host device=1 ptr=" + PointerText(h));
}

TEST_F(ArgumentLog, PluginErrorDetailReachesTheCaller) {
    void *p = reinterpret_cast<void *>(0x77);
    const infiniStatus_t status = infinirtMalloc(&p, 777777);
    const std::string message = infinirtGetLastErrorMessage();
    EXPECT_EQ(status, INFINI_STATUS_OUT_OF_MEMORY);
    EXPECT_NE(message.find("marker 5150"), std::string::npos) << message;
    EXPECT_NE(message.find("stublog"), std::string::npos) << "the loader prefixes the backend name: " << message;
    EXPECT_EQ(p, reinterpret_cast<void *>(0x77)) << "output written on failure";
}

// The loader validates; refused calls never reach the plugin.
TEST_F(ArgumentLog, RefusedCallsNeverReachThePlugin) {
    void *p = nullptr;
    std::vector<char> host(64);
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMalloc(&p, 0));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtMalloc(nullptr, 64));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamSynchronize(reinterpret_cast<void *>(0x1234)));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtSetDevice(kStub, 2));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFree(host.data()));
    EXPECT_OK(infinirtMemcpy(host.data(), host.data() + 32, 0, INFINIRT_MEMCPY_H2H));
    EXPECT_EQ(log_.Text(), "") << "the plugin was called";
}

// A stream created on device 1 goes to device 1 whatever device is current.
TEST_F(ArgumentLog, StreamIsRoutedToItsDevice) {
    ASSERT_OK(infinirtSetDevice(kStub, 1));
    infinirtStream_t s = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    const std::string created = Only("stream_create");
    ASSERT_EQ(created.rfind("stream_create device=1 -> S", 0), 0u) << created;
    const std::string name = CreatedName(created);
    void *d = nullptr;
    ASSERT_OK(infinirtMalloc(&d, 100));
    ASSERT_OK(infinirtSetDevice(kStub, 0));
    log_.Clear();

    ASSERT_OK(infinirtStreamSynchronize(s));
    EXPECT_EQ(Only("stream_synchronize"), "stream_synchronize device=1 stream=" + name);
    ASSERT_OK(infinirtStreamQuery(s));
    EXPECT_EQ(Only("stream_query"), "stream_query device=1 stream=" + name);
    std::vector<char> host(100, 'x');
    ASSERT_OK(infinirtMemcpyAsync(d, host.data(), 100, INFINIRT_MEMCPY_H2D, s));
    EXPECT_EQ(Only("memcpy_async"), "memcpy_async device=1 dst=" + PointerText(d) + " src=" +
                                        PointerText(host.data()) + " size=100 kind=1 stream=" + name);
    ASSERT_OK(infinirtMemsetAsync(d, 7, 50, s));
    EXPECT_EQ(Only("memset_async"),
              "memset_async device=1 ptr=" + PointerText(d) + " value=7 count=50 stream=" + name);
    ASSERT_OK(infinirtStreamDestroy(s));
    EXPECT_EQ(Only("stream_destroy"), "stream_destroy device=1 stream=" + name);
    ASSERT_OK(infinirtFree(d));
}

TEST_F(ArgumentLog, NullStreamIsTheCurrentDevicesDefaultStream) {
    ASSERT_OK(infinirtStreamSynchronize(nullptr));
    EXPECT_EQ(Only("stream_synchronize"), "stream_synchronize device=0 stream=NULL");
    ASSERT_OK(infinirtSetDevice(kStub, 1));
    log_.Clear();
    ASSERT_OK(infinirtStreamSynchronize(nullptr));
    EXPECT_EQ(Only("stream_synchronize"), "stream_synchronize device=1 stream=NULL");
    void *d = nullptr;
    ASSERT_OK(infinirtMalloc(&d, 64));
    ASSERT_OK(infinirtMemsetAsync(d, 3, 64, nullptr));
    EXPECT_EQ(Only("memset_async"), "memset_async device=1 ptr=" + PointerText(d) + " value=3 count=64 stream=NULL");
    ASSERT_OK(infinirtFree(d));
}

// Copies go to the device owning the device-side pointer; unknown pointers to the current device.
TEST_F(ArgumentLog, CopiesAreRoutedByPointerOwner) {
    ASSERT_OK(infinirtSetDevice(kStub, 1));
    void *d = nullptr;
    ASSERT_OK(infinirtMalloc(&d, 64));
    ASSERT_OK(infinirtSetDevice(kStub, 0));
    log_.Clear();
    std::vector<char> host(64, 0);
    ASSERT_OK(infinirtMemcpy(host.data(), d, 64, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(Only("memcpy_sync"), "memcpy_sync device=1 dst=" + PointerText(host.data()) + " src=" +
                                       PointerText(d) + " size=64 kind=2");
    log_.Clear();
    std::vector<char> other(64, 1);
    ASSERT_OK(infinirtMemcpy(other.data(), host.data(), 64, INFINIRT_MEMCPY_H2H));
    EXPECT_EQ(Only("memcpy_sync"), "memcpy_sync device=0 dst=" + PointerText(other.data()) + " src=" +
                                       PointerText(host.data()) + " size=64 kind=0");
    log_.Clear();
    ASSERT_OK(infinirtMemset(d, 9, 10));
    EXPECT_EQ(Only("memset_sync"), "memset_sync device=1 ptr=" + PointerText(d) + " value=9 count=10");
    ASSERT_OK(infinirtFree(d));
}

TEST_F(ArgumentLog, EventsAreRoutedToTheirDevice) {
    ASSERT_OK(infinirtSetDevice(kStub, 1));
    infinirtEvent_t e = nullptr;
    ASSERT_OK(infinirtEventCreateWithFlags(&e, INFINIRT_EVENT_DISABLE_TIMING));
    const std::string created = Only("event_create");
    ASSERT_EQ(created.rfind("event_create device=1 flags=1 -> E", 0), 0u) << created;
    const std::string name = CreatedName(created);
    infinirtStream_t s = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    const std::string stream = CreatedName(Only("stream_create"));
    ASSERT_OK(infinirtSetDevice(kStub, 0));
    log_.Clear();

    ASSERT_OK(infinirtEventRecord(e, s));
    EXPECT_EQ(Only("event_record"), "event_record device=1 event=" + name + " stream=" + stream);
    infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
    ASSERT_OK(infinirtEventQuery(e, &status));
    EXPECT_EQ(Only("event_query"), "event_query device=1 event=" + name);
    ASSERT_OK(infinirtEventSynchronize(e));
    EXPECT_EQ(Only("event_synchronize"), "event_synchronize device=1 event=" + name);
    ASSERT_OK(infinirtStreamWaitEvent(s, e));
    EXPECT_EQ(Only("stream_wait_event"), "stream_wait_event device=1 stream=" + stream + " event=" + name);
    ASSERT_OK(infinirtEventDestroy(e));
    EXPECT_EQ(Only("event_destroy"), "event_destroy device=1 event=" + name);
    ASSERT_OK(infinirtStreamDestroy(s));
}

// NULL in EventRecord is the current device's default stream: refused (before reaching the
// plugin) when that is not the event's device, passed as NULL to the event's device otherwise.
TEST_F(ArgumentLog, EventRecordNullStreamIsTheCurrentDevicesDefaultStream) {
    ASSERT_OK(infinirtSetDevice(kStub, 1));
    infinirtEvent_t e = nullptr;
    ASSERT_OK(infinirtEventCreate(&e));
    const std::string name = CreatedName(Only("event_create"));
    ASSERT_OK(infinirtSetDevice(kStub, 0));
    log_.Clear();
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtEventRecord(e, nullptr));
    EXPECT_TRUE(log_.LinesStartingWith("event_record").empty()) << log_.Text();
    ASSERT_OK(infinirtSetDevice(kStub, 1));
    EXPECT_OK(infinirtEventRecord(e, nullptr));
    EXPECT_EQ(Only("event_record"), "event_record device=1 event=" + name + " stream=NULL");
    ASSERT_OK(infinirtEventDestroy(e));
}

TEST_F(ArgumentLog, ElapsedTimeKeepsStartAndEnd) {
    infinirtEvent_t start = nullptr;
    infinirtEvent_t end = nullptr;
    ASSERT_OK(infinirtEventCreate(&start));
    ASSERT_OK(infinirtEventCreate(&end));
    const std::vector<std::string> created = log_.LinesStartingWith("event_create");
    ASSERT_EQ(created.size(), 2u);
    ASSERT_OK(infinirtEventRecord(start, nullptr));
    ASSERT_OK(infinirtEventRecord(end, nullptr));
    ASSERT_OK(infinirtEventSynchronize(end));
    float ms = 0.0f;
    ASSERT_OK(infinirtEventElapsedTime(&ms, start, end));
    EXPECT_EQ(ms, 1.5f);
    EXPECT_EQ(Only("event_elapsed_time"), "event_elapsed_time device=0 start=" + CreatedName(created[0]) +
                                              " end=" + CreatedName(created[1]));
    ASSERT_OK(infinirtEventDestroy(start));
    ASSERT_OK(infinirtEventDestroy(end));
}

TEST_F(ArgumentLog, NativeHandlesPassThroughUnchanged) {
    ASSERT_OK(infinirtSetDevice(kStub, 1));
    infinirtStream_t s = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    infinirtEvent_t e = nullptr;
    ASSERT_OK(infinirtEventCreate(&e));
    log_.Clear();
    void *native = nullptr;
    ASSERT_OK(infinirtStreamGetNativeHandle(s, &native));
    const std::string stream_line = Only("stream_get_native");
    EXPECT_EQ(stream_line.substr(stream_line.find("-> ") + 3), PointerText(native));
    EXPECT_EQ(stream_line.rfind("stream_get_native device=1 stream=S", 0), 0u) << stream_line;
    ASSERT_OK(infinirtStreamGetNativeHandle(nullptr, &native));
    EXPECT_EQ(native, reinterpret_cast<void *>(0xD0001)) << "NULL is device 1's default stream";
    ASSERT_OK(infinirtEventGetNativeHandle(e, &native));
    const std::string event_line = Only("event_get_native");
    EXPECT_EQ(event_line.substr(event_line.find("-> ") + 3), PointerText(native));
    ASSERT_OK(infinirtDeviceGetNativeContext(kStub, 0, &native));
    EXPECT_EQ(native, reinterpret_cast<void *>(0xC0000));
    ASSERT_OK(infinirtEventDestroy(e));
    ASSERT_OK(infinirtStreamDestroy(s));
}

TEST_F(ArgumentLog, DeviceQueriesPassTheIndex) {
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    ASSERT_OK(infinirtGetMemInfo(kStub, 1, &free_bytes, &total_bytes));
    EXPECT_EQ(free_bytes, (size_t{1} << 29) + 1);
    EXPECT_EQ(total_bytes, size_t{1} << 30);
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof(props);
    ASSERT_OK(infinirtGetDeviceProperties(kStub, 1, &props));
    EXPECT_STREQ(props.name, "stub cambricon 1");
    infinirtDeviceResourceSnapshot_t snapshot{};
    ASSERT_OK(infinirtGetDeviceResourceSnapshot(kStub, 1, &snapshot));
    EXPECT_TRUE(snapshot.valid_fields & INFINIRT_RESOURCE_FIELD_MEMORY_CAPACITY)
        << "without get_resource_snapshot the loader fills memory fields from get_mem_info";
    EXPECT_EQ(snapshot.total_bytes, size_t{1} << 30);
    EXPECT_EQ(snapshot.free_bytes, (size_t{1} << 29) + 1);
}

TEST_F(ArgumentLog, StreamOrderedAllocationPassesTheStream) {
    infinirtStream_t s = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    const std::string stream = CreatedName(Only("stream_create"));
    void *p = nullptr;
    ASSERT_OK(infinirtMallocAsync(&p, 2048, s));
    EXPECT_EQ(Only("malloc_async"), "malloc_async device=0 size=2048 stream=" + stream + " -> " + PointerText(p));
    ASSERT_OK(infinirtFreeAsync(p, s));
    EXPECT_EQ(Only("free_async"), "free_async device=0 ptr=" + PointerText(p) + " stream=" + stream);
    ASSERT_OK(infinirtStreamDestroy(s));
}

// The stub has no capture entries: the loader records the work and replays it at each launch.
TEST_F(ArgumentLog, GenericCaptureRecordsAndReplays) {
    infinirtStream_t s = nullptr;
    infinirtStream_t other = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    ASSERT_OK(infinirtStreamCreate(&other));
    const std::vector<std::string> created = log_.LinesStartingWith("stream_create");
    ASSERT_EQ(created.size(), 2u);
    infinirtEvent_t e = nullptr;
    ASSERT_OK(infinirtEventCreate(&e));
    const std::string event = CreatedName(Only("event_create"));
    void *d = nullptr;
    ASSERT_OK(infinirtMalloc(&d, 32));
    log_.Clear();

    ASSERT_OK(infinirtStreamBeginCapture(s, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL));
    ASSERT_OK(infinirtMemsetAsync(d, 9, 32, s));
    ASSERT_OK(infinirtEventRecord(e, s));
    infinirtGraph_t graph = nullptr;
    ASSERT_OK(infinirtStreamEndCapture(s, &graph));
    EXPECT_TRUE(log_.LinesStartingWith("memset_async").empty()) << "captured work ran:\n" << log_.Text();
    EXPECT_TRUE(log_.LinesStartingWith("event_record").empty()) << "captured work ran:\n" << log_.Text();
    infinirtGraphExec_t exec = nullptr;
    ASSERT_OK(infinirtGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
    ASSERT_OK(infinirtGraphLaunch(exec, s));
    ASSERT_OK(infinirtGraphLuanch(exec, other));
    const std::vector<std::string> replays = log_.LinesStartingWith("memset_async");
    ASSERT_EQ(replays.size(), 2u) << log_.Text();
    const std::string prefix = "memset_async device=0 ptr=" + PointerText(d) + " value=9 count=32 stream=";
    EXPECT_EQ(replays[0], prefix + CreatedName(created[0]));
    EXPECT_EQ(replays[1], prefix + CreatedName(created[1]));
    const std::vector<std::string> records = log_.LinesStartingWith("event_record");
    ASSERT_EQ(records.size(), 2u) << log_.Text();
    EXPECT_EQ(records[0], "event_record device=0 event=" + event + " stream=" + CreatedName(created[0]));
    EXPECT_EQ(records[1], "event_record device=0 event=" + event + " stream=" + CreatedName(created[1]));
    ASSERT_OK(infinirtEventDestroy(e));
    ASSERT_OK(infinirtGraphExecDestroy(exec));
    ASSERT_OK(infinirtGraphDestroy(graph));
    ASSERT_OK(infinirtStreamDestroy(s));
    ASSERT_OK(infinirtStreamDestroy(other));
    ASSERT_OK(infinirtFree(d));
}

} // namespace
} // namespace infinirt_loader_test
