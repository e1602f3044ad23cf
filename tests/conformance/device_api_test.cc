// Device selection, counts, properties, native context and the backend list.
#include "device_test.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <thread>

namespace infinirt_test {
namespace {

class Device : public DeviceTest {};

TEST_P(Device, GetDeviceReturnsWhatWasSet) {
    infiniDevice_t t = INFINI_DEVICE_TYPE_COUNT;
    int i = -1;
    ASSERT_OK(infinirtGetDevice(&t, &i));
    EXPECT_EQ(t, type());
    EXPECT_EQ(i, id());
}

TEST_P(Device, CountsAreConsistent) {
    int all[INFINI_DEVICE_TYPE_COUNT] = {};
    ASSERT_OK(infinirtGetAllDeviceCountSized(all, INFINI_DEVICE_TYPE_COUNT));
    int count = -1;
    ASSERT_OK(infinirtGetDeviceCount(type(), &count));
    EXPECT_EQ(count, all[type()]);
    EXPECT_GT(count, id());
}

// The symbol infinirtGetAllDeviceCount (reached by its address: the header's macro of that name
// passes this header's count) writes only the published header's types, so an array sized with
// that header's count (11) is never overrun; the sized variant writes every type that fits, no more.
TEST(DeviceCounts, PublishedNameWritesOnlyThePublishedTypes) {
    constexpr int kPoison = -7;
    int old_array[INFINI_DEVICE_TYPE_COUNT + 2];
    std::fill(std::begin(old_array), std::end(old_array), kPoison);
    ASSERT_OK((infinirtGetAllDeviceCount)(old_array));
    int all[INFINI_DEVICE_TYPE_COUNT + 2];
    std::fill(std::begin(all), std::end(all), kPoison);
    ASSERT_OK(infinirtGetAllDeviceCountSized(all, INFINI_DEVICE_TYPE_COUNT));
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT + 2; ++t) {
        SCOPED_TRACE(t);
        if (t < INFINIRT_PUBLISHED_DEVICE_TYPE_COUNT) {
            EXPECT_EQ(old_array[t], all[t]);
            EXPECT_GE(old_array[t], 0);
        } else {
            EXPECT_EQ(old_array[t], kPoison) << "infinirtGetAllDeviceCount wrote past the published count";
        }
        if (t < INFINI_DEVICE_TYPE_COUNT) {
            int count = -1;
            ASSERT_OK(infinirtGetDeviceCount(static_cast<infiniDevice_t>(t), &count));
            EXPECT_EQ(all[t], count);
        } else {
            EXPECT_EQ(all[t], kPoison) << "the sized call wrote past array_size";
        }
    }
    int three[5];
    std::fill(std::begin(three), std::end(three), kPoison);
    ASSERT_OK(infinirtGetAllDeviceCountSized(three, 3));
    EXPECT_EQ(three[2], all[2]);
    EXPECT_EQ(three[3], kPoison);
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtGetAllDeviceCountSized(three, 0));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtGetAllDeviceCountSized(three, -1));
    EXPECT_EQ(three[0], all[0]);
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtGetAllDeviceCountSized(nullptr, 3));
}

TEST_P(Device, InitIsIdempotent) {
    EXPECT_OK(infinirtInit());
    EXPECT_OK(infinirtInit());
    infiniDevice_t t = INFINI_DEVICE_TYPE_COUNT;
    int i = -1;
    ASSERT_OK(infinirtGetDevice(&t, &i));
    EXPECT_EQ(t, type());
    EXPECT_EQ(i, id());
}

TEST_P(Device, Properties) {
    REQUIRE_FEATURES(Feature::kDeviceProperties);
    infinirtDeviceProperties_t props;
    std::memset(&props, 0, sizeof(props));
    props.struct_size = sizeof(props);
    ASSERT_OK(infinirtGetDeviceProperties(type(), id(), &props));
    EXPECT_GT(std::strlen(props.name), 0u);
    EXPECT_LT(std::strlen(props.name), sizeof(props.name));
    if (Declares(Feature::kMemory)) {
        EXPECT_GT(props.total_memory, 0u) << "a device with memory reports how much";
    }
    EXPECT_GE(props.multiprocessor_count, 0);
    // Every backend says what its devices are; the cpu backend's are CPUs.
    EXPECT_TRUE(props.device_kind == INFINIRT_DEVICE_KIND_CPU || props.device_kind == INFINIRT_DEVICE_KIND_GPU ||
                props.device_kind == INFINIRT_DEVICE_KIND_ACCELERATOR)
        << "device_kind " << static_cast<int>(props.device_kind);
    if (type() == INFINI_DEVICE_CPU) {
        EXPECT_EQ(props.device_kind, INFINIRT_DEVICE_KIND_CPU);
    }
    // Limits are unknown (0) or positive; a block dimension never exceeds the block's thread limit.
    EXPECT_GE(props.clock_rate_khz, 0);
    EXPECT_GE(props.max_threads_per_block, 0);
    for (int d = 0; d < 3; ++d) {
        EXPECT_GE(props.max_block_dim[d], 0);
        EXPECT_GE(props.max_grid_dim[d], 0);
        if (props.max_threads_per_block > 0) {
            EXPECT_LE(props.max_block_dim[d], props.max_threads_per_block) << "dimension " << d;
        }
    }
    // The loader says whether graphs are the backend's own.
    EXPECT_TRUE(props.graphs_native == 0 || props.graphs_native == 1) << props.graphs_native;
    // And whether the device's memory is host memory: every cpu device's is, a GPU's never.
    EXPECT_TRUE(props.memory_is_host == 0 || props.memory_is_host == 1) << props.memory_is_host;
    if (type() == INFINI_DEVICE_CPU) {
        EXPECT_EQ(props.memory_is_host, 1);
    }
    if (props.device_kind == INFINIRT_DEVICE_KIND_GPU) {
        EXPECT_EQ(props.memory_is_host, 0);
    }
}

// A caller built before the fields appended in issue 13 (struct_size up to pci_bus_id) gets the
// old fields and nothing past them.
TEST_P(Device, PropertiesServesCallersOfTheOlderStruct) {
    REQUIRE_FEATURES(Feature::kDeviceProperties);
    const size_t old_size = offsetof(infinirtDeviceProperties_t, device_kind);
    infinirtDeviceProperties_t props;
    std::memset(&props, 0xcd, sizeof(props));
    props.struct_size = old_size;
    ASSERT_OK(infinirtGetDeviceProperties(type(), id(), &props));
    EXPECT_EQ(props.struct_size, old_size);
    EXPECT_GT(strnlen(props.name, sizeof(props.name)), 0u);
    const auto *bytes = reinterpret_cast<const unsigned char *>(&props);
    for (size_t i = old_size; i < sizeof(props); ++i) {
        ASSERT_EQ(bytes[i], 0xcd) << "byte " << i << " past struct_size was written";
    }
}

// A caller built against an older, shorter struct must not have bytes past its struct_size
// written. The loader may instead refuse the short size.
TEST_P(Device, PropertiesRespectsAShorterStructSize) {
    REQUIRE_FEATURES(Feature::kDeviceProperties);
    infinirtDeviceProperties_t props;
    std::memset(&props, 0xcd, sizeof(props));
    props.struct_size = offsetof(infinirtDeviceProperties_t, vendor);
    const infiniStatus_t status = infinirtGetDeviceProperties(type(), id(), &props);
    ASSERT_TRUE(status == INFINI_STATUS_SUCCESS || status == INFINI_STATUS_BAD_PARAM) << infinirtGetErrorName(status);
    const auto *bytes = reinterpret_cast<const unsigned char *>(&props);
    for (size_t i = offsetof(infinirtDeviceProperties_t, vendor); i < sizeof(props); ++i) {
        ASSERT_EQ(bytes[i], 0xcd) << "byte " << i << " past struct_size was written";
    }
    if (status == INFINI_STATUS_SUCCESS) {
        EXPECT_GT(strnlen(props.name, sizeof(props.name)), 0u);
    }
}

// Declared: the device's native context. Not declared: NOT_IMPLEMENTED with a message, output
// untouched, and the test skips with the reason.
TEST_P(Device, NativeContext) {
    void *context = nullptr;
    if (const char *reason = UndeclaredReason(backend(), Feature::kNativeHandles)) {
        EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtDeviceGetNativeContext(type(), id(), &context));
        EXPECT_EQ(context, nullptr) << "output written on failure";
        GTEST_SKIP() << "backend \"" << backend() << "\" does not declare native_handles: " << reason;
    }
    ASSERT_OK(infinirtDeviceGetNativeContext(type(), id(), &context));
    EXPECT_NE(context, nullptr);
}

// The backend serving this device is listed as LOADED with a negotiated version and its count.
TEST_P(Device, BackendIsListedAsLoaded) {
    ASSERT_FALSE(backend().empty()) << "no LOADED backend lists device type " << type();
    int backends = 0;
    ASSERT_OK(infinirtGetBackendCount(&backends));
    int matches = 0;
    for (int i = 0; i < backends; ++i) {
        infinirtBackendInfo_t info{};
        info.struct_size = sizeof(info);
        ASSERT_OK(infinirtGetBackendInfo(i, &info));
        if (info.state != INFINIRT_BACKEND_LOADED || info.device_type != type()) {
            continue;
        }
        ++matches;
        int count = 0;
        ASSERT_OK(infinirtGetDeviceCount(type(), &count));
        EXPECT_EQ(info.device_count, count);
        EXPECT_GE(info.interface_version, 1u);
        EXPECT_STREQ(info.reason, "");
        EXPECT_GT(std::strlen(info.path), 0u);
        EXPECT_STREQ(info.name, backend().c_str());
    }
    EXPECT_EQ(matches, 1) << "exactly one LOADED backend serves a device type";
}

// The current device is per thread; a new thread starts on the documented process default.
TEST_P(Device, CurrentDeviceIsPerThread) {
    if (std::getenv("INFINICORE_DEFAULT_DEVICE") != nullptr) {
        GTEST_SKIP() << "INFINICORE_DEFAULT_DEVICE overrides the default this test computes";
    }
    // The rule: the first GPU or accelerator (by type, then index), else cpu:0, else the first
    // device there is. A device that is itself a CPU (PoCL) does not win over cpu:0.
    infiniDevice_t expected_type = INFINI_DEVICE_TYPE_COUNT;
    int expected_id = 0;
    int all[INFINI_DEVICE_TYPE_COUNT] = {};
    ASSERT_OK(infinirtGetAllDeviceCountSized(all, INFINI_DEVICE_TYPE_COUNT));
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT && expected_type == INFINI_DEVICE_TYPE_COUNT; ++t) {
        for (int d = 0; t != INFINI_DEVICE_CPU && d < all[t]; ++d) {
            infinirtDeviceProperties_t props{};
            props.struct_size = sizeof(props);
            ASSERT_OK(infinirtGetDeviceProperties(static_cast<infiniDevice_t>(t), d, &props));
            if (props.device_kind != INFINIRT_DEVICE_KIND_CPU) {
                expected_type = static_cast<infiniDevice_t>(t);
                expected_id = d;
                break;
            }
        }
    }
    if (expected_type == INFINI_DEVICE_TYPE_COUNT) {
        expected_type = INFINI_DEVICE_CPU;
        if (all[INFINI_DEVICE_CPU] == 0) {
            for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
                if (all[t] > 0) {
                    expected_type = static_cast<infiniDevice_t>(t);
                    break;
                }
            }
        }
    }
    infiniStatus_t thread_status = INFINI_STATUS_INTERNAL_ERROR;
    infiniDevice_t thread_type = INFINI_DEVICE_TYPE_COUNT;
    int thread_id = -1;
    std::thread([&] { thread_status = infinirtGetDevice(&thread_type, &thread_id); }).join();
    ASSERT_EQ(thread_status, INFINI_STATUS_SUCCESS);
    EXPECT_EQ(thread_type, expected_type);
    EXPECT_EQ(thread_id, expected_id);

    // A thread switching devices does not move this thread.
    std::thread([&] { thread_status = infinirtSetDevice(expected_type, expected_id); }).join();
    EXPECT_EQ(thread_status, INFINI_STATUS_SUCCESS);
    infiniDevice_t t = INFINI_DEVICE_TYPE_COUNT;
    int i = -1;
    ASSERT_OK(infinirtGetDevice(&t, &i));
    EXPECT_EQ(t, type());
    EXPECT_EQ(i, id());
}

INSTANTIATE_ON_ALL_DEVICES(Device);

// Whatever backends exist, their listing is well formed.
TEST(Backends, ListingIsWellFormed) {
    int backends = -1;
    ASSERT_OK(infinirtGetBackendCount(&backends));
    ASSERT_GE(backends, 1) << "this tree always builds the cpu backend";
    int loaded_per_type[INFINI_DEVICE_TYPE_COUNT] = {};
    int devices_per_type[INFINI_DEVICE_TYPE_COUNT] = {};
    for (int i = 0; i < backends; ++i) {
        infinirtBackendInfo_t info{};
        info.struct_size = sizeof(info);
        ASSERT_OK(infinirtGetBackendInfo(i, &info));
        SCOPED_TRACE(std::string("backend ") + info.name + " at " + info.path);
        EXPECT_GT(strnlen(info.name, sizeof(info.name)), 0u);
        EXPECT_LT(strnlen(info.name, sizeof(info.name)), sizeof(info.name));
        EXPECT_GT(strnlen(info.path, sizeof(info.path)), 0u);
        EXPECT_LT(strnlen(info.reason, sizeof(info.reason)), sizeof(info.reason));
        switch (info.state) {
        case INFINIRT_BACKEND_LOADED:
            EXPECT_STREQ(info.reason, "");
            EXPECT_GE(info.interface_version, 1u);
            ASSERT_GE(info.device_type, 0);
            ASSERT_LT(info.device_type, INFINI_DEVICE_TYPE_COUNT);
            ++loaded_per_type[info.device_type];
            devices_per_type[info.device_type] += info.device_count;
            break;
        case INFINIRT_BACKEND_UNAVAILABLE:
            EXPECT_GT(std::strlen(info.reason), 0u);
            EXPECT_EQ(info.device_count, 0);
            break;
        case INFINIRT_BACKEND_FAILED:
        case INFINIRT_BACKEND_SHADOWED:
            EXPECT_GT(std::strlen(info.reason), 0u);
            break;
        default:
            ADD_FAILURE() << "unknown state " << info.state;
        }
    }
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        EXPECT_LE(loaded_per_type[t], 1) << "device type " << t;
        int count = -1;
        ASSERT_OK(infinirtGetDeviceCount(static_cast<infiniDevice_t>(t), &count));
        EXPECT_EQ(count, devices_per_type[t]) << "device type " << t;
    }
}

// A caller built against a shorter infinirtBackendInfo_t: nothing past its struct_size is
// written (or the short size is refused).
TEST(Backends, InfoRespectsAShorterStructSize) {
    infinirtBackendInfo_t info;
    std::memset(&info, 0xcd, sizeof(info));
    info.struct_size = offsetof(infinirtBackendInfo_t, path);
    const infiniStatus_t status = infinirtGetBackendInfo(0, &info);
    ASSERT_TRUE(status == INFINI_STATUS_SUCCESS || status == INFINI_STATUS_BAD_PARAM) << infinirtGetErrorName(status);
    const auto *bytes = reinterpret_cast<const unsigned char *>(&info);
    for (size_t i = offsetof(infinirtBackendInfo_t, path); i < sizeof(info); ++i) {
        ASSERT_EQ(bytes[i], 0xcd) << "byte " << i << " past struct_size was written";
    }
    if (status == INFINI_STATUS_SUCCESS) {
        EXPECT_GT(strnlen(info.name, sizeof(info.name)), 0u);
    }
}

TEST(Backends, IndexOutOfRangeIsRefused) {
    int backends = 0;
    ASSERT_OK(infinirtGetBackendCount(&backends));
    infinirtBackendInfo_t info{};
    info.struct_size = sizeof(info);
    EXPECT_REFUSED(infinirtGetBackendInfo(-1, &info));
    EXPECT_REFUSED(infinirtGetBackendInfo(backends, &info));
}

TEST(Devices, AtLeastOneDeviceExists) {
    EXPECT_FALSE(AllDevices().empty()) << "the cpu backend always provides cpu:0";
}

// Selecting a device of a type that has no devices fails and changes nothing.
TEST(Devices, TypeWithoutDevicesIsNotFound) {
    int all[INFINI_DEVICE_TYPE_COUNT] = {};
    ASSERT_OK(infinirtGetAllDeviceCountSized(all, INFINI_DEVICE_TYPE_COUNT));
    // Start from a device that exists (cpu may be filtered out by INFINIRT_BACKENDS).
    int start = 0;
    while (start < INFINI_DEVICE_TYPE_COUNT && all[start] == 0) {
        ++start;
    }
    ASSERT_LT(start, INFINI_DEVICE_TYPE_COUNT) << "no device at all";
    ASSERT_OK(infinirtSetDevice(static_cast<infiniDevice_t>(start), 0));
    int tested = 0;
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        if (all[t] != 0) {
            continue;
        }
        ++tested;
        EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtSetDevice(static_cast<infiniDevice_t>(t), 0));
        infiniDevice_t current = INFINI_DEVICE_TYPE_COUNT;
        int current_id = -1;
        ASSERT_OK(infinirtGetDevice(&current, &current_id));
        EXPECT_EQ(current, static_cast<infiniDevice_t>(start));
        EXPECT_EQ(current_id, 0);
    }
    if (tested == 0) {
        GTEST_SKIP() << "every device type has devices here";
    }
}

} // namespace
} // namespace infinirt_test
