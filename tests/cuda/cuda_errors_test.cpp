/* The cuda plugin's error details carry the native call, the CUDA error's name and number, and
 * the figures; and its device properties are those of the driver. */
#include <infinirt.h>

#include "cuda_test_support.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace {

TEST(CudaErrors, OutOfMemoryNamesTheCallTheErrorAndTheFigures) {
    SKIP_WITHOUT_CUDA_DEVICE();
    ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_NVIDIA, 0), INFINI_STATUS_SUCCESS);
    void *p = reinterpret_cast<void *>(0x1);
    const size_t huge = size_t(2) << 40; /* 2 TiB: more than any current GPU has */
    ASSERT_EQ(infinirtMalloc(&p, huge), INFINI_STATUS_OUT_OF_MEMORY);
    EXPECT_EQ(p, reinterpret_cast<void *>(0x1)) << "outputs are written only on success";
    const std::string message = infinirtGetLastErrorMessage();
    std::printf("detail: %s\n", message.c_str());
    EXPECT_NE(message.find("cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (2)"), std::string::npos) << message;
    EXPECT_NE(message.find("2.0 TiB"), std::string::npos) << message;
    EXPECT_NE(message.find("cuda:0"), std::string::npos) << message;
    EXPECT_NE(message.find("free"), std::string::npos) << message;
    ASSERT_EQ(infinirtMallocAsync(&p, huge, nullptr), INFINI_STATUS_OUT_OF_MEMORY);
    EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("cuMemAllocAsync failed"), std::string::npos)
        << infinirtGetLastErrorMessage();
}

TEST(CudaErrors, PropertiesComeFromTheDriver) {
    SKIP_WITHOUT_CUDA_DEVICE();
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof props;
    ASSERT_EQ(infinirtGetDeviceProperties(INFINI_DEVICE_NVIDIA, 0, &props), INFINI_STATUS_SUCCESS);
    CUdevice dev = 0;
    ASSERT_EQ(cuda_test::nativeApi().cuDeviceGet(&dev, 0), CUDA_SUCCESS);
    char name[256] = "";
    ASSERT_EQ(cuda_test::nativeApi().cuDeviceGetName(name, sizeof name, dev), CUDA_SUCCESS);
    int major = 0, sms = 0;
    ASSERT_EQ(cuda_test::nativeApi().cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
              CUDA_SUCCESS);
    ASSERT_EQ(cuda_test::nativeApi().cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev),
              CUDA_SUCCESS);
    EXPECT_STREQ(props.name, name);
    EXPECT_EQ(props.compute_capability_major, major);
    EXPECT_EQ(props.multiprocessor_count, sms);
    EXPECT_EQ(std::string(props.architecture).rfind("sm_", 0), 0u) << props.architecture;
    EXPECT_EQ(props.has_uuid, 1);
    EXPECT_NE(std::strchr(props.pci_bus_id, ':'), nullptr) << props.pci_bus_id; /* "0000:3b:00.0" */
    EXPECT_GT(props.total_memory, size_t(0));
    std::printf("cuda:0 = %s, %s, %d SMs, %.1f GiB, PCI %s, driver %s\n", props.name, props.architecture,
                props.multiprocessor_count, props.total_memory / 1073741824.0, props.pci_bus_id,
                props.driver_version);
}

} // namespace
