// The conformance kernel set (kernels/: kernels.cu, kernels.cl, kernels_cpu.c and vulkan/*.comp, the
// same kernels written four ways) as module images for each backend, and what the kernel tests share: the
// module owner, argument and config builders, the host declaration of the by-value struct, and
// the KernelTest fixture, which loads the set onto the device under test.
#ifndef INFINIRT_TESTS_KERNEL_IMAGES_H
#define INFINIRT_TESTS_KERNEL_IMAGES_H

#include "device_test.h"
#include "resources.h"

#include <gtest/gtest.h>
#include <infinirt.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace infinirt_test {

// One image of the kernel set: its bytes as built (or, for OpenCL C, as checked in).
struct KernelImage {
    std::string what; // "PTX", "cubin", ... and the file it came from, for messages
    infinirtModuleFormat_t format = INFINIRT_MODULE_FORMAT_AUTO;
    std::vector<char> bytes;
    const char *options = nullptr;

    // The infinirtModuleImage_t for these bytes (valid while this object lives), in `format`, or
    // in `as` where given (e.g. AUTO).
    infinirtModuleImage_t Describe() const { return Describe(format); }
    infinirtModuleImage_t Describe(infinirtModuleFormat_t as) const;
};

// The images of the kernel set built for `device`'s backend, the one the tests load first: cpu,
// the kernels_cpu.c shared object (HOST_SO); cuda, the PTX, then the cubin and the fatbin when
// the device can run their machine code (compute capability 9.x, INFINIRT_TEST_CUDA_ARCH);
// opencl, kernels.cl (OPENCL_C); vulkan, vulkan/*.comp linked into one SPIR-V module (SPIRV). Empty,
// with `why_not` saying why, when this build has none for
// the backend (e.g. nvcc was not found, or a backend this tree builds no image for).
std::vector<KernelImage> KernelImages(const DeviceParam &device, std::string *why_not);

// kernels.cl's source: an OpenCL C image any backend can be handed (e.g. one without modules).
KernelImage OpenClSourceImage();

// infinirtModuleLoad / infinirtModuleUnload.
class ScopedModule : public Owned<infinirtModuleUnload> {
public:
    infiniStatus_t Load(const DeviceParam &device, const infinirtModuleImage_t *images, size_t count, char *log = nullptr,
                        size_t log_size = 0) {
        return Own(infinirtModuleLoad(&p_, device.type, device.id, images, count, log, log_size));
    }
    infiniStatus_t Load(const DeviceParam &device, const KernelImage &image, char *log = nullptr, size_t log_size = 0) {
        const infinirtModuleImage_t described = image.Describe();
        return Load(device, &described, 1, log, log_size);
    }
};

// The by-value struct of saxpy_mixed, declared so the host layout is the device's: the member
// holding a float4 is 16-byte aligned on every device, so it must be on the host too.
struct alignas(16) Packet {
    int32_t tag;
    alignas(16) float v[4];
};
static_assert(sizeof(Packet) == 32, "Packet is 32 bytes, as in kernels/");
static_assert(offsetof(Packet, v) == 16, "Packet.v is at offset 16, as in kernels/");

// The scalar arguments of saxpy_mixed(y, x, a, b, k, big, p, n) the tests pass: y[i] = a x[i] +
// kAddend, every term exact in float.
struct SaxpyScalars {
    float a = 2.0f;
    double b = 0.5;
    int32_t k = 3;
    int64_t big = (int64_t{5} << 32) | 0x1234; // the kernel adds big >> 32
    Packet p = {7, {1.0f, 2.0f, 3.0f, 4.0f}};
    // b + k + (big >> 32) + p.tag + p.v[0] + 2 p.v[1] + 3 p.v[2] + 4 p.v[3]
    static constexpr float kAddend = 0.5f + 3.0f + 5.0f + 7.0f + 30.0f;
};

// Arguments. The pointed-at bytes must live until infinirtLaunchKernel returns (it copies them).
inline infinirtKernelArg_t PointerArg(void *const *slot) {
    return infinirtKernelArg_t{INFINIRT_KERNEL_ARG_POINTER, sizeof(void *), slot};
}
template <class T>
inline infinirtKernelArg_t ValueArg(const T *value) {
    return infinirtKernelArg_t{INFINIRT_KERNEL_ARG_VALUE, sizeof(T), value};
}
inline infinirtKernelArg_t LocalArg(size_t bytes) {
    return infinirtKernelArg_t{INFINIRT_KERNEL_ARG_LOCAL, bytes, nullptr};
}

// A whole config (struct_size = sizeof): grid and block in x, y, z.
infinirtLaunchConfig_t LaunchConfig(std::array<uint32_t, 3> grid, std::array<uint32_t, 3> block,
                                    size_t dynamic_shared_bytes = 0);

// vector_add(a, b, c, n) over ceil(n / block) blocks of `block` threads on `stream`.
infiniStatus_t LaunchVectorAdd(infinirtKernel_t kernel, const void *a, const void *b, void *c, int32_t n,
                               infinirtStream_t stream, uint32_t block = 128);

// Loads the first image of the kernel set (KernelImages) onto `device` into `module` and takes
// its kernel `name`.
::testing::AssertionResult LoadKernel(const DeviceParam &device, ScopedModule *module, const char *name,
                                      infinirtKernel_t *kernel);

// Copies between host vectors and device memory (synchronous infinirtMemcpy).
template <class T>
infiniStatus_t Upload(void *device, const std::vector<T> &host) {
    return infinirtMemcpy(device, host.data(), host.size() * sizeof(T), INFINIRT_MEMCPY_H2D);
}
// Allocates `device` on the current device and uploads `host` into it.
template <class T>
infiniStatus_t MallocFrom(DeviceBuffer *device, const std::vector<T> &host) {
    const infiniStatus_t st = device->Malloc(host.size() * sizeof(T));
    return st != INFINI_STATUS_SUCCESS ? st : Upload(*device, host);
}
template <class T>
infiniStatus_t Download(std::vector<T> *host, const void *device) {
    return infinirtMemcpy(host->data(), device, host->size() * sizeof(T), INFINIRT_MEMCPY_D2H);
}

// Whether `log` (log_size > 0 bytes) holds a NUL: the log contract (truncated, NUL-terminated).
::testing::AssertionResult LogIsTerminated(const char *log, size_t log_size);

// The text of a log buffer, up to its NUL or its end.
std::string LogText(const char *log, size_t log_size);

// Whether `message` names `device` the way the loader does ("cpu:1").
::testing::AssertionResult NamesDevice(const std::string &message, const DeviceParam &device);

// Whether `message` contains `part`.
::testing::AssertionResult Mentions(const std::string &message, const std::string &part);

// The fixture of tests that run kernels: needs memory, streams and kernels, and loads the kernel
// set's first image (KernelImages) onto the device under test as module_.
class KernelTest : public DeviceTest {
protected:
    KernelTest() : DeviceTest({Feature::kMemory, Feature::kStreams, Feature::kKernels}) {}
    explicit KernelTest(std::initializer_list<Feature> needs) : DeviceTest(needs) {}

    void SetUp() override;

    // infinirtModuleGetKernel on module_.
    infiniStatus_t GetKernel(infinirtKernel_t *kernel, const char *name) {
        return infinirtModuleGetKernel(kernel, module_, name);
    }

    std::vector<KernelImage> images_;
    ScopedModule module_;
};

} // namespace infinirt_test

#endif // INFINIRT_TESTS_KERNEL_IMAGES_H
