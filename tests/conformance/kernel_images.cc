#include "kernel_images.h"

#include <cstring>
#include <fstream>
#include <iterator>

// Paths of the kernel set's files, from tests/conformance/kernels/kernels.cmake ("" when the
// image was not built here).
#ifndef INFINIRT_TEST_KERNELS_CPU
#error "INFINIRT_TEST_KERNELS_CPU (the path of the cpu kernels' shared object) must be defined"
#endif

namespace infinirt_test {
namespace {

// The file's bytes, or false with `why_not` naming it.
bool ReadFile(const std::string &path, std::vector<char> *bytes, std::string *why_not) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        *why_not = "cannot read " + path;
        return false;
    }
    bytes->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (bytes->empty()) {
        *why_not = path + " is empty";
        return false;
    }
    return true;
}

bool AddImage(std::vector<KernelImage> *images, const char *what, const char *path, infinirtModuleFormat_t format,
              std::string *why_not) {
    if (path[0] == '\0') {
        *why_not = std::string("no ") + what + " image of the kernel set was built (tests/conformance/kernels/kernels.cmake)";
        return false;
    }
    KernelImage image;
    image.what = std::string(what) + " (" + path + ")";
    image.format = format;
    if (!ReadFile(path, &image.bytes, why_not)) {
        return false;
    }
    images->push_back(std::move(image));
    return true;
}

// The compute capability major of a cuda device, or -1.
int ComputeCapabilityMajor(const DeviceParam &device) {
    infinirtDeviceProperties_t props;
    std::memset(&props, 0, sizeof props);
    props.struct_size = sizeof props;
    if (infinirtGetDeviceProperties(device.type, device.id, &props) != INFINI_STATUS_SUCCESS) {
        return -1;
    }
    return props.compute_capability_major;
}

} // namespace

infinirtModuleImage_t KernelImage::Describe(infinirtModuleFormat_t as) const {
    infinirtModuleImage_t image;
    std::memset(&image, 0, sizeof image);
    image.struct_size = sizeof image;
    image.format = as;
    image.data = bytes.data();
    image.size = bytes.size();
    image.options = options;
    return image;
}

KernelImage OpenClSourceImage() {
    KernelImage image;
    std::string why_not;
    image.what = std::string("OpenCL C (") + INFINIRT_TEST_KERNELS_CL + ")";
    image.format = INFINIRT_MODULE_FORMAT_OPENCL_C;
    if (!ReadFile(INFINIRT_TEST_KERNELS_CL, &image.bytes, &why_not)) {
        ADD_FAILURE() << why_not;
    }
    return image;
}

std::vector<KernelImage> KernelImages(const DeviceParam &device, std::string *why_not) {
    std::vector<KernelImage> images;
    if (device.backend == "cpu") {
        AddImage(&images, "host shared object", INFINIRT_TEST_KERNELS_CPU, INFINIRT_MODULE_FORMAT_HOST_SO, why_not);
    } else if (device.backend == "opencl") {
        images.push_back(OpenClSourceImage());
    } else if (device.backend == "cuda") {
        if (AddImage(&images, "PTX", INFINIRT_TEST_KERNELS_PTX, INFINIRT_MODULE_FORMAT_PTX, why_not) &&
            ComputeCapabilityMajor(device) == 9) {
            // sm_90 machine code runs on compute capability 9.x only (INFINIRT_TEST_CUDA_ARCH).
            AddImage(&images, "cubin", INFINIRT_TEST_KERNELS_CUBIN, INFINIRT_MODULE_FORMAT_CUBIN, why_not);
            AddImage(&images, "fatbin", INFINIRT_TEST_KERNELS_FATBIN, INFINIRT_MODULE_FORMAT_FATBIN, why_not);
        }
    } else if (device.backend == "vulkan") {
        AddImage(&images, "Vulkan SPIR-V", INFINIRT_TEST_KERNELS_SPV, INFINIRT_MODULE_FORMAT_SPIRV, why_not);
    } else {
        *why_not = "this tree builds no image of the kernel set (tests/conformance/kernels/) for backend \"" +
                   device.backend + "\"";
    }
    return images;
}

infinirtLaunchConfig_t LaunchConfig(std::array<uint32_t, 3> grid, std::array<uint32_t, 3> block,
                                    size_t dynamic_shared_bytes) {
    infinirtLaunchConfig_t config;
    std::memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    for (int i = 0; i < 3; ++i) {
        config.grid[i] = grid[i];
        config.block[i] = block[i];
    }
    config.dynamic_shared_bytes = dynamic_shared_bytes;
    return config;
}

infiniStatus_t LaunchVectorAdd(infinirtKernel_t kernel, const void *a, const void *b, void *c, int32_t n,
                               infinirtStream_t stream, uint32_t block) {
    void *pa = const_cast<void *>(a);
    void *pb = const_cast<void *>(b);
    void *pc = c;
    const infinirtKernelArg_t args[] = {PointerArg(&pa), PointerArg(&pb), PointerArg(&pc), ValueArg(&n)};
    const uint32_t blocks = static_cast<uint32_t>((static_cast<uint32_t>(n) + block - 1) / block);
    const infinirtLaunchConfig_t config = LaunchConfig({blocks, 1, 1}, {block, 1, 1});
    return infinirtLaunchKernel(kernel, &config, args, 4, stream);
}

::testing::AssertionResult LoadKernel(const DeviceParam &device, ScopedModule *module, const char *name,
                                      infinirtKernel_t *kernel) {
    std::string why_not;
    const std::vector<KernelImage> images = KernelImages(device, &why_not);
    if (images.empty()) {
        return ::testing::AssertionFailure() << why_not;
    }
    const Outcome loaded = Capture(module->Load(device, images[0]));
    if (loaded.status != INFINI_STATUS_SUCCESS) {
        return Matches(loaded, INFINI_STATUS_SUCCESS, "infinirtModuleLoad") << " (" << images[0].what << ")";
    }
    return Matches(Capture(infinirtModuleGetKernel(kernel, *module, name)), INFINI_STATUS_SUCCESS,
                   "infinirtModuleGetKernel");
}

::testing::AssertionResult LogIsTerminated(const char *log, size_t log_size) {
    if (std::memchr(log, '\0', log_size) == nullptr) {
        return ::testing::AssertionFailure() << "the log of " << log_size << " bytes holds no NUL";
    }
    return ::testing::AssertionSuccess();
}

std::string LogText(const char *log, size_t log_size) { return std::string(log, strnlen(log, log_size)); }

::testing::AssertionResult NamesDevice(const std::string &message, const DeviceParam &device) {
    const std::string name = DeviceTypeName(device.type) + ":" + std::to_string(device.id);
    if (message.find(name) == std::string::npos) {
        return ::testing::AssertionFailure() << "the message does not name device " << name << ": \"" << message << "\"";
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult Mentions(const std::string &message, const std::string &part) {
    if (message.find(part) == std::string::npos) {
        return ::testing::AssertionFailure() << "the message does not mention \"" << part << "\": \"" << message << "\"";
    }
    return ::testing::AssertionSuccess();
}

void KernelTest::SetUp() {
    DeviceTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) {
        return;
    }
    std::string why_not;
    images_ = KernelImages(GetParam(), &why_not);
    ASSERT_FALSE(images_.empty()) << "backend \"" << backend() << "\" declares kernels, but " << why_not;
    char log[4096];
    std::memset(log, 'x', sizeof log);
    ASSERT_OK(module_.Load(GetParam(), images_[0], log, sizeof log))
        << images_[0].what << "; log: " << LogText(log, sizeof log);
    ASSERT_TRUE(LogIsTerminated(log, sizeof log));
}

} // namespace infinirt_test
