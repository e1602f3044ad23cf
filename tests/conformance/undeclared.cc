// What an undeclared feature must look like (every entry answers NOT_IMPLEMENTED with a message),
// and the skip of the tests that need one (SkipUnlessDeclared, REQUIRE_FEATURES).
#include "device_test.h"
#include "kernel_images.h"

#include <cstdint>
#include <cstring>
#include <string>

namespace infinirt_test {
namespace {

void *const kSentinel = reinterpret_cast<void *>(0x5e17);

#define EXPECT_NOT_IMPLEMENTED(expr) EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, expr)

// Each feature's entries, called on the current device. A call that unexpectedly succeeds has its
// resource released, so a backend that declares less than it does fails without leaking.
void ExpectDeviceProperties(const DeviceParam &device) {
    infinirtDeviceProperties_t props;
    std::memset(&props, 0, sizeof props);
    props.struct_size = sizeof props;
    EXPECT_NOT_IMPLEMENTED(infinirtGetDeviceProperties(device.type, device.id, &props));
}

void ExpectMemory(const DeviceParam &device) {
    void *p = kSentinel;
    EXPECT_NOT_IMPLEMENTED(infinirtMalloc(&p, 64));
    if (p != kSentinel) {
        ADD_FAILURE() << "infinirtMalloc wrote its output";
        infinirtFree(p);
        p = kSentinel;
    }
    EXPECT_NOT_IMPLEMENTED(infinirtMallocHost(&p, 64));
    if (p != kSentinel) {
        ADD_FAILURE() << "infinirtMallocHost wrote its output";
        infinirtFreeHost(p);
    }
    size_t free_bytes = 1;
    size_t total_bytes = 1;
    EXPECT_NOT_IMPLEMENTED(infinirtGetMemInfo(device.type, device.id, &free_bytes, &total_bytes));
    EXPECT_EQ(free_bytes, 1u);
    EXPECT_EQ(total_bytes, 1u);
    // Copies and fills of memory infinirt did not allocate go to the current device.
    uint8_t src[64] = {};
    uint8_t dst[64] = {};
    EXPECT_NOT_IMPLEMENTED(infinirtMemcpy(dst, src, sizeof dst, INFINIRT_MEMCPY_H2H));
    EXPECT_NOT_IMPLEMENTED(infinirtMemset(dst, 1, sizeof dst));
}

void ExpectStreams() {
    infinirtStream_t s = kSentinel;
    EXPECT_NOT_IMPLEMENTED(infinirtStreamCreate(&s));
    if (s != kSentinel) {
        ADD_FAILURE() << "infinirtStreamCreate wrote its output";
        infinirtStreamDestroy(s);
    }
    EXPECT_NOT_IMPLEMENTED(infinirtStreamSynchronize(nullptr));
    EXPECT_NOT_IMPLEMENTED(infinirtDeviceSynchronize());
    uint8_t src[64] = {};
    uint8_t dst[64] = {};
    EXPECT_NOT_IMPLEMENTED(infinirtMemcpyAsync(dst, src, sizeof dst, INFINIRT_MEMCPY_H2H, nullptr));
    EXPECT_NOT_IMPLEMENTED(infinirtMemsetAsync(dst, 1, sizeof dst, nullptr));
}

void ExpectEvents() {
    for (uint32_t flags : {0u, static_cast<uint32_t>(INFINIRT_EVENT_DISABLE_TIMING)}) {
        infinirtEvent_t e = kSentinel;
        EXPECT_NOT_IMPLEMENTED(infinirtEventCreateWithFlags(&e, flags)) << "flags " << flags;
        if (e != kSentinel) {
            ADD_FAILURE() << "infinirtEventCreateWithFlags wrote its output";
            infinirtEventDestroy(e);
        }
    }
}

void ExpectStreamQuery(bool streams) {
    EXPECT_NOT_IMPLEMENTED(infinirtStreamQuery(nullptr));
    if (streams) {
        infinirtStream_t s = nullptr;
        ASSERT_OK(infinirtStreamCreate(&s));
        EXPECT_NOT_IMPLEMENTED(infinirtStreamQuery(s));
        EXPECT_OK(infinirtStreamDestroy(s));
    }
}

void ExpectEventTiming(bool events) {
    if (!events) {
        return; // no event to time
    }
    infinirtEvent_t start = nullptr;
    infinirtEvent_t end = nullptr;
    ASSERT_OK(infinirtEventCreate(&start));
    Defer destroy_start([&] { infinirtEventDestroy(start); });
    ASSERT_OK(infinirtEventCreate(&end));
    Defer destroy_end([&] { infinirtEventDestroy(end); });
    ASSERT_OK(infinirtEventRecord(start, nullptr));
    ASSERT_OK(infinirtEventRecord(end, nullptr));
    ASSERT_OK(infinirtEventSynchronize(end));
    float ms = -42.0f;
    EXPECT_NOT_IMPLEMENTED(infinirtEventElapsedTime(&ms, start, end));
    EXPECT_EQ(ms, -42.0f) << "output written on failure";
}

void ExpectStreamOrderedAlloc() {
    void *p = kSentinel;
    EXPECT_NOT_IMPLEMENTED(infinirtMallocAsync(&p, 64, nullptr));
    if (p != kSentinel) {
        ADD_FAILURE() << "infinirtMallocAsync wrote its output";
        infinirtFree(p);
    }
}

void ExpectStreamCapture(bool streams) {
    if (!streams) {
        return; // the default stream cannot be captured anyway; there is no stream to capture
    }
    infinirtStream_t s = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    Defer destroy([&] { infinirtStreamDestroy(s); });
    const infiniStatus_t st = infinirtStreamBeginCapture(s, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL);
    EXPECT_TRUE(Matches(Capture(st), INFINI_STATUS_NOT_IMPLEMENTED, "infinirtStreamBeginCapture(s, GLOBAL)"));
    if (st == INFINI_STATUS_SUCCESS) {
        infinirtGraph_t graph = nullptr;
        if (infinirtStreamEndCapture(s, &graph) == INFINI_STATUS_SUCCESS) {
            infinirtGraphDestroy(graph);
        }
    }
}

void ExpectNativeHandles(const DeviceParam &device, bool streams, bool events) {
    void *native = kSentinel;
    EXPECT_NOT_IMPLEMENTED(infinirtDeviceGetNativeContext(device.type, device.id, &native));
    EXPECT_NOT_IMPLEMENTED(infinirtStreamGetNativeHandle(nullptr, &native));
    if (streams) {
        infinirtStream_t s = nullptr;
        ASSERT_OK(infinirtStreamCreate(&s));
        EXPECT_NOT_IMPLEMENTED(infinirtStreamGetNativeHandle(s, &native));
        EXPECT_OK(infinirtStreamDestroy(s));
    }
    if (events) {
        infinirtEvent_t e = nullptr;
        ASSERT_OK(infinirtEventCreate(&e));
        EXPECT_NOT_IMPLEMENTED(infinirtEventGetNativeHandle(e, &native));
        EXPECT_OK(infinirtEventDestroy(e));
    }
    EXPECT_EQ(native, kSentinel) << "output written on failure";
}

void ExpectResourceSnapshot(const DeviceParam &device) {
    infinirtDeviceResourceSnapshot_t snapshot;
    std::memset(&snapshot, 0xcd, sizeof snapshot);
    EXPECT_NOT_IMPLEMENTED(infinirtGetDeviceResourceSnapshot(device.type, device.id, &snapshot));
    EXPECT_EQ(reinterpret_cast<const unsigned char *>(&snapshot)[0], 0xcd) << "output written on failure";
}

// ModuleLoad is the one entry of kernels a caller reaches without a module: the others take the
// handles only it makes (any other value is INVALID_HANDLE before a backend is asked). Given the
// backend's own image of the kernel set where there is one, else kernels.cl, by name and as AUTO.
void ExpectKernels(const DeviceParam &device) {
    std::string why_not;
    std::vector<KernelImage> images = KernelImages(device, &why_not);
    if (images.empty()) {
        images.push_back(OpenClSourceImage());
    }
    for (infinirtModuleFormat_t as : {images[0].format, INFINIRT_MODULE_FORMAT_AUTO}) {
        const infinirtModuleImage_t image = images[0].Describe(as);
        infinirtModule_t m = kSentinel;
        char log[64];
        EXPECT_NOT_IMPLEMENTED(infinirtModuleLoad(&m, device.type, device.id, &image, 1, log, sizeof log))
            << images[0].what << (as == INFINIRT_MODULE_FORMAT_AUTO ? " as AUTO" : "");
        if (m != kSentinel) {
            ADD_FAILURE() << "infinirtModuleLoad wrote its output";
            infinirtModuleUnload(m);
        }
    }
}

// ModuleGetGlobal on a module of the kernel set (which has the variable g_value).
void ExpectModuleGlobals(const DeviceParam &device, bool kernels) {
    if (!kernels) {
        return; // no module to ask
    }
    std::string why_not;
    const std::vector<KernelImage> images = KernelImages(device, &why_not);
    ASSERT_FALSE(images.empty()) << why_not;
    infinirtModule_t m = nullptr;
    const infinirtModuleImage_t image = images[0].Describe();
    ASSERT_OK(infinirtModuleLoad(&m, device.type, device.id, &image, 1, nullptr, 0)) << images[0].what;
    Defer unload([&] { infinirtModuleUnload(m); });
    void *p = kSentinel;
    size_t size = 1;
    EXPECT_NOT_IMPLEMENTED(infinirtModuleGetGlobal(&p, &size, m, "g_value"));
    EXPECT_NOT_IMPLEMENTED(infinirtModuleGetGlobal(&p, nullptr, m, "g_value"));
    EXPECT_EQ(p, kSentinel) << "output written on failure";
    EXPECT_EQ(size, 1u) << "output written on failure";
}

// GTEST_SKIP returns from the function it is in: this one.
void Skip(const std::string &why) { GTEST_SKIP() << why; }

// FAIL returns from the function it is in: this one. A fatal failure stops the test after SetUp.
void Fail(const std::string &why) { FAIL() << why; }

// Makes `device` current for the scope, then restores the thread's current device.
class CurrentDeviceScope {
public:
    explicit CurrentDeviceScope(const DeviceParam &device) {
        restore_ = infinirtGetDevice(&type_, &id_) == INFINI_STATUS_SUCCESS;
        EXPECT_OK(infinirtSetDevice(device.type, device.id));
    }
    ~CurrentDeviceScope() {
        if (restore_) {
            EXPECT_OK(infinirtSetDevice(type_, id_));
        }
    }

private:
    bool restore_ = false;
    infiniDevice_t type_ = INFINI_DEVICE_CPU;
    int id_ = 0;
};

} // namespace

void ExpectUndeclaredEntries(const DeviceParam &device, Feature feature) {
    const char *reason = UndeclaredReason(device.backend, feature);
    SCOPED_TRACE("backend \"" + device.backend + "\" does not declare " + FeatureName(feature) +
                 ", so each of its entries must answer NOT_IMPLEMENTED with a message; its reason: " +
                 (reason != nullptr ? reason : "(none: it declares the feature)"));
    const bool streams = UndeclaredReason(device.backend, Feature::kStreams) == nullptr;
    const bool events = UndeclaredReason(device.backend, Feature::kEvents) == nullptr;
    const bool kernels = UndeclaredReason(device.backend, Feature::kKernels) == nullptr;
    switch (feature) {
    case Feature::kDeviceProperties: ExpectDeviceProperties(device); break;
    case Feature::kMemory: ExpectMemory(device); break;
    case Feature::kStreams: ExpectStreams(); break;
    case Feature::kEvents: ExpectEvents(); break;
    case Feature::kStreamQuery: ExpectStreamQuery(streams); break;
    case Feature::kEventTiming: ExpectEventTiming(events); break;
    case Feature::kStreamOrderedAlloc: ExpectStreamOrderedAlloc(); break;
    case Feature::kStreamCapture: ExpectStreamCapture(streams); break;
    case Feature::kNativeHandles: ExpectNativeHandles(device, streams, events); break;
    case Feature::kCrossDeviceHandles: break; // no entry of its own: it is how the others behave
    case Feature::kResourceSnapshot: ExpectResourceSnapshot(device); break;
    case Feature::kKernels: ExpectKernels(device); break;
    case Feature::kModuleGlobals: ExpectModuleGlobals(device, kernels); break;
    }
}

bool SkipUnlessDeclared(const DeviceParam &device, const std::vector<Feature> &needs) {
    std::string reasons;
    std::vector<Feature> undeclared;
    for (Feature f : needs) {
        if (const char *reason = UndeclaredReason(device.backend, f)) {
            undeclared.push_back(f);
            reasons += std::string(reasons.empty() ? "" : "; ") + FeatureName(f) + ": " + reason;
        }
    }
    if (undeclared.empty()) {
        return false;
    }
    const std::string who = "backend \"" + device.backend + "\" (" + InstanceName(device) + ")";
    {
        const bool had_failure = ::testing::Test::HasFailure();
        CurrentDeviceScope scope(device);
        for (Feature f : undeclared) {
            ExpectUndeclaredEntries(device, f);
        }
        if (!had_failure && ::testing::Test::HasFailure()) {
            Fail(who + " does not declare what this test needs, but not every entry of it answered "
                       "NOT_IMPLEMENTED with a message (above): declare the feature, or make its entries refuse");
            return true;
        }
    }
    Skip(who + " does not declare " + reasons);
    return true;
}

} // namespace infinirt_test
