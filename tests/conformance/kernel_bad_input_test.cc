// Bad input to the module and launch calls: each refusal has its documented status and a
// non-empty last-error message naming its figures, outputs are left alone, a refused launch runs
// nothing, and the module keeps working afterwards.
#include "kernel_enums.h"
#include "kernel_images.h"

#include <cstring>

namespace infinirt_test {
namespace {

class KernelBadInput : public KernelTest {};

void *const kSentinel = reinterpret_cast<void *>(0x5e17);

const std::vector<void *> &GarbageHandles() {
    static const std::vector<void *> kHandles = {
        reinterpret_cast<void *>(0x1234),
        reinterpret_cast<void *>(0xdeadbeef0ull),
        reinterpret_cast<void *>(~uintptr_t{0} - 7),
    };
    return kHandles;
}

TEST_P(KernelBadInput, ModuleLoadRefusesBadArguments) {
    const infinirtModuleImage_t good = images_[0].Describe();
    infinirtModule_t m = kSentinel;
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtModuleLoad(nullptr, type(), id(), &good, 1, nullptr, 0));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtModuleLoad(&m, type(), id(), nullptr, 1, nullptr, 0));
    const Outcome count0 = Capture(infinirtModuleLoad(&m, type(), id(), &good, 0, nullptr, 0));
    EXPECT_TRUE(Matches(count0, INFINI_STATUS_BAD_PARAM, "infinirtModuleLoad(count 0)"));
    EXPECT_TRUE(Mentions(count0.message, "0"));

    infinirtModuleImage_t bad = good;
    bad.data = nullptr;
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtModuleLoad(&m, type(), id(), &bad, 1, nullptr, 0));
    bad = good;
    bad.size = 0;
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtModuleLoad(&m, type(), id(), &bad, 1, nullptr, 0));
    for (size_t struct_size : {size_t{0}, sizeof(size_t), size_t{2} << 20}) {
        SCOPED_TRACE("struct_size " + std::to_string(struct_size));
        bad = good;
        bad.struct_size = struct_size;
        const Outcome refused = Capture(infinirtModuleLoad(&m, type(), id(), &bad, 1, nullptr, 0));
        EXPECT_TRUE(Matches(refused, INFINI_STATUS_BAD_PARAM, "infinirtModuleLoad(bad struct_size)"));
        EXPECT_TRUE(Mentions(refused.message, std::to_string(struct_size)));
    }
    for (int format : {99, -1, 9}) {
        SCOPED_TRACE("format " + std::to_string(format));
        const Outcome refused =
            Capture(oorModuleLoadFormat(&m, type(), id(), good.data, good.size, format));
        EXPECT_TRUE(Matches(refused, INFINI_STATUS_BAD_PARAM, "infinirtModuleLoad(format out of range)"));
        EXPECT_TRUE(Mentions(refused.message, std::to_string(format)));
    }
    // A second image that is bad refuses the whole load.
    const infinirtModuleImage_t pair[] = {good, bad};
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtModuleLoad(&m, type(), id(), pair, 2, nullptr, 0));
    int count = 0;
    ASSERT_OK(infinirtGetDeviceCount(type(), &count));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtModuleLoad(&m, type(), count, &good, 1, nullptr, 0));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtModuleLoad(&m, type(), -1, &good, 1, nullptr, 0));
    EXPECT_EQ(m, kSentinel) << "a refused load wrote its output";
}

// A format the backend does not load is BAD_PARAM (the message naming those it does).
TEST_P(KernelBadInput, ModuleLoadRefusesAFormatTheBackendDoesNotLoad) {
    const KernelImage source = OpenClSourceImage();
    const infinirtModuleImage_t foreign =
        backend() == "opencl" ? images_[0].Describe(INFINIRT_MODULE_FORMAT_PTX) : source.Describe();
    infinirtModule_t m = kSentinel;
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtModuleLoad(&m, type(), id(), &foreign, 1, nullptr, 0));
    EXPECT_EQ(m, kSentinel);
}

// cpu: one shared object per module (count > 1 is BAD_PARAM).
TEST_P(KernelBadInput, CpuModuleLoadRefusesSeveralImages) {
    if (backend() != "cpu") {
        GTEST_SKIP() << "only the cpu backend refuses to link several images";
    }
    const infinirtModuleImage_t two[] = {images_[0].Describe(), images_[0].Describe()};
    infinirtModule_t m = kSentinel;
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtModuleLoad(&m, type(), id(), two, 2, nullptr, 0));
    EXPECT_EQ(m, kSentinel);
}

// An image that does not build is BUILD_FAILED, with the log naming the line where the backend
// compiles text (OpenCL C, PTX), and its first lines in the last-error message.
TEST_P(KernelBadInput, BuildFailureIsReportedWithItsLog) {
    std::string text;
    KernelImage broken;
    std::string line; // what the log says of the bad line
    if (backend() == "opencl") {
        text = "kernel void fine(global int *p) {\n"
               "    p[0] = 1;\n"
               "}\n"
               "kernel void broken(global int *p) { p[0] = = 2; }\n";
        broken.format = INFINIRT_MODULE_FORMAT_OPENCL_C;
        line = ":4:";
    } else if (backend() == "cuda") {
        text = ".version 8.0\n"
               ".target sm_80\n"
               ".address_size 64\n"
               "\n"
               ".visible .entry broken()\n"
               "{\n"
               "    this_is_no_instruction;\n"
               "    ret;\n"
               "}\n";
        broken.format = INFINIRT_MODULE_FORMAT_PTX;
        line = "line 7";
    } else if (backend() == "cpu") {
        text = "\x7f" "ELF but no shared object follows: garbage bytes";
        broken.format = INFINIRT_MODULE_FORMAT_HOST_SO;
    } else if (backend() == "vulkan") {
        // SPIR-V 1.5 declaring the Shader capability, then an instruction of 9 words cut short.
        const uint32_t words[] = {0x07230203u, 0x00010500u, 0, 16, 0, (2u << 16) | 17u, 1, (9u << 16) | 15u, 5};
        text.assign(reinterpret_cast<const char *>(words), sizeof words);
        broken.format = INFINIRT_MODULE_FORMAT_SPIRV;
        line = "word 7";
    } else {
        GTEST_SKIP() << "no broken image is written for backend \"" << backend() << "\"";
    }
    broken.bytes.assign(text.begin(), text.end());
    const infinirtModuleImage_t image = broken.Describe();
    char log[4096];
    std::memset(log, 'x', sizeof log);
    infinirtModule_t m = kSentinel;
    const Outcome failed = Capture(infinirtModuleLoad(&m, type(), id(), &image, 1, log, sizeof log));
    EXPECT_TRUE(Matches(failed, INFINI_STATUS_BUILD_FAILED, "infinirtModuleLoad(broken image)"));
    EXPECT_EQ(m, kSentinel);
    ASSERT_TRUE(LogIsTerminated(log, sizeof log));
    if (!line.empty()) {
        EXPECT_TRUE(Mentions(LogText(log, sizeof log), line)) << "the log names the bad line";
        EXPECT_TRUE(Mentions(failed.message, line)) << "the last error holds the log's first lines";
    }
    // A log too small for the whole text is truncated, still NUL-terminated.
    char small[6];
    std::memset(small, 'x', sizeof small);
    EXPECT_STATUS(INFINI_STATUS_BUILD_FAILED, infinirtModuleLoad(&m, type(), id(), &image, 1, small, sizeof small));
    EXPECT_TRUE(LogIsTerminated(small, sizeof small));
    EXPECT_EQ(m, kSentinel);
}

TEST_P(KernelBadInput, UnknownNamesAreSymbolNotFound) {
    infinirtKernel_t k = kSentinel;
    const Outcome kernel = Capture(infinirtModuleGetKernel(&k, module_, "no_such_kernel"));
    EXPECT_TRUE(Matches(kernel, INFINI_STATUS_SYMBOL_NOT_FOUND, "infinirtModuleGetKernel(\"no_such_kernel\")"));
    EXPECT_TRUE(Mentions(kernel.message, "no_such_kernel"));
    EXPECT_EQ(k, kSentinel);
    // A module variable is no kernel.
    if (Declares(Feature::kModuleGlobals)) {
        EXPECT_STATUS(INFINI_STATUS_SYMBOL_NOT_FOUND, infinirtModuleGetKernel(&k, module_, "g_value"));
        EXPECT_EQ(k, kSentinel);
        void *g = kSentinel;
        size_t size = 1;
        const Outcome global = Capture(infinirtModuleGetGlobal(&g, &size, module_, "no_such_global"));
        EXPECT_TRUE(Matches(global, INFINI_STATUS_SYMBOL_NOT_FOUND, "infinirtModuleGetGlobal(\"no_such_global\")"));
        EXPECT_TRUE(Mentions(global.message, "no_such_global"));
        EXPECT_EQ(g, kSentinel);
        EXPECT_EQ(size, 1u);
    }
    // The module still works.
    EXPECT_OK(infinirtModuleGetKernel(&k, module_, "vector_add"));
}

TEST_P(KernelBadInput, NullOutputsAndNames) {
    infinirtKernel_t k = kSentinel;
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtModuleGetKernel(nullptr, module_, "vector_add"));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtModuleGetKernel(&k, module_, nullptr));
    EXPECT_EQ(k, kSentinel);
    void *g = kSentinel;
    size_t size = 1;
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtModuleGetGlobal(nullptr, &size, module_, "g_value"));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtModuleGetGlobal(&g, &size, module_, nullptr));
    EXPECT_EQ(g, kSentinel);
    EXPECT_EQ(size, 1u);
    ASSERT_OK(infinirtModuleGetKernel(&k, module_, "vector_add"));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtKernelGetAttribute(nullptr, INFINIRT_KERNEL_ATTR_NUM_PARAMS, k));
    int64_t value = -42;
    for (int attr : {99, -1, 7}) {
        SCOPED_TRACE("attr " + std::to_string(attr));
        const Outcome refused = Capture(oorKernelGetAttribute(&value, attr, k));
        EXPECT_TRUE(Matches(refused, INFINI_STATUS_BAD_PARAM, "infinirtKernelGetAttribute(attr out of range)"));
        EXPECT_TRUE(Mentions(refused.message, std::to_string(attr)));
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, oorKernelSetAttribute(k, attr, 0));
    }
    EXPECT_EQ(value, -42);
}

// Every bad launch of infinirtLaunchKernel's contract, on vector_add: the status, a message with
// its figures, and nothing run.
TEST_P(KernelBadInput, BadLaunchesAreRefusedBeforeRunning) {
    infinirtKernel_t add = nullptr;
    ASSERT_OK(GetKernel(&add, "vector_add"));
    int64_t max_threads = 0;
    int64_t num_params = 0;
    int64_t max_dynamic = 0;
    ASSERT_OK(infinirtKernelGetAttribute(&max_threads, INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK, add));
    ASSERT_OK(infinirtKernelGetAttribute(&num_params, INFINIRT_KERNEL_ATTR_NUM_PARAMS, add));
    ASSERT_OK(infinirtKernelGetAttribute(&max_dynamic, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, add));
    ASSERT_GE(max_threads, 2);
    ASSERT_LE(max_threads, int64_t{1} << 20);

    constexpr int32_t kCount = 256;
    DeviceBuffer da;
    DeviceBuffer dc;
    ASSERT_OK(MallocFrom(&da, std::vector<float>(kCount, 1.0f)));
    ASSERT_OK(MallocFrom(&dc, std::vector<float>(kCount, 0.0f)));
    void *pa = da;
    void *pc = dc;
    const int32_t n = kCount;
    const infinirtKernelArg_t args[] = {PointerArg(&pa), PointerArg(&pa), PointerArg(&pc), ValueArg(&n)};
    const infinirtLaunchConfig_t good = LaunchConfig({kCount / 64, 1, 1}, {64, 1, 1});
    ScopedStream s;
    ASSERT_OK(s.Create());

    // A refusal with its status, and figures the message must hold (any one of each group).
    auto refused = [&](infiniStatus_t expected, infiniStatus_t got, const char *what,
                       std::initializer_list<std::vector<std::string>> figures) {
        const Outcome outcome = Capture(got);
        EXPECT_TRUE(Matches(outcome, expected, what));
        for (const std::vector<std::string> &alternatives : figures) {
            bool found = false;
            for (const std::string &figure : alternatives) {
                found = found || outcome.message.find(figure) != std::string::npos;
            }
            EXPECT_TRUE(found) << what << ": the message names none of {" << ::testing::PrintToString(alternatives)
                               << "}: \"" << outcome.message << "\"";
        }
    };
    const auto uint32 = [](int64_t v) { return static_cast<uint32_t>(v); };

    for (int dim = 0; dim < 3; ++dim) {
        infinirtLaunchConfig_t c = good;
        c.grid[dim] = 0;
        refused(INFINI_STATUS_BAD_PARAM, infinirtLaunchKernel(add, &c, args, 4, s), "zero grid dimension", {{"grid"}});
        c = good;
        c.block[dim] = 0;
        refused(INFINI_STATUS_BAD_PARAM, infinirtLaunchKernel(add, &c, args, 4, s), "zero block dimension", {{"block"}});
    }
    {
        infinirtLaunchConfig_t c = LaunchConfig({1, 1, 1}, {uint32(max_threads + 1), 1, 1});
        refused(INFINI_STATUS_BAD_PARAM, infinirtLaunchKernel(add, &c, args, 4, s), "block over MAX_THREADS_PER_BLOCK",
                {{std::to_string(max_threads + 1)}, {std::to_string(max_threads)}});
        // Each dimension within the limit, their product over it.
        c = LaunchConfig({1, 1, 1}, {uint32(max_threads / 2 + 1), 2, 1});
        refused(INFINI_STATUS_BAD_PARAM, infinirtLaunchKernel(add, &c, args, 4, s), "block of 3 dimensions over the limit",
                {{std::to_string((max_threads / 2 + 1) * 2)}, {std::to_string(max_threads)}});
        // A product of 2^64 threads, which 64-bit arithmetic would take for 0.
        c = LaunchConfig({1, 1, 1}, {uint32_t{1} << 22, uint32_t{1} << 21, uint32_t{1} << 21});
        refused(INFINI_STATUS_BAD_PARAM, infinirtLaunchKernel(add, &c, args, 4, s), "block of 2^64 threads",
                {{"more than"}, {std::to_string(max_threads)}});
    }
    if (max_dynamic >= 0) {
        infinirtLaunchConfig_t c = good;
        c.dynamic_shared_bytes = static_cast<size_t>(max_dynamic) + 1;
        refused(INFINI_STATUS_BAD_PARAM, infinirtLaunchKernel(add, &c, args, 4, s), "dynamic shared over the limit",
                {{std::to_string(max_dynamic + 1)}, {std::to_string(max_dynamic)}});
    }
    for (uint32_t flags : {0x2u, 0x80000000u}) {
        infinirtLaunchConfig_t c = good;
        c.flags = flags;
        char hex[16];
        std::snprintf(hex, sizeof hex, "0x%x", flags);
        refused(INFINI_STATUS_BAD_PARAM, infinirtLaunchKernel(add, &c, args, 4, s), "unknown flag bits",
                {{hex, std::to_string(flags)}});
    }
    for (size_t struct_size : {size_t{0}, sizeof(size_t), size_t{2} << 20}) {
        infinirtLaunchConfig_t c = good;
        c.struct_size = struct_size;
        refused(INFINI_STATUS_BAD_PARAM, infinirtLaunchKernel(add, &c, args, 4, s), "bad struct_size",
                {{std::to_string(struct_size)}});
    }
    if (num_params >= 0) {
        refused(INFINI_STATUS_BAD_PARAM, infinirtLaunchKernel(add, &good, args, 3, s), "3 arguments for 4",
                {{"3"}, {std::to_string(num_params)}});
        const infinirtKernelArg_t five[] = {args[0], args[1], args[2], args[3], args[3]};
        refused(INFINI_STATUS_BAD_PARAM, infinirtLaunchKernel(add, &good, five, 5, s), "5 arguments for 4",
                {{"5"}, {std::to_string(num_params)}});
    }
    {
        infinirtKernelArg_t bad[4] = {args[0], args[1], args[2], args[3]};
        bad[3].value = nullptr;
        refused(INFINI_STATUS_NULL_POINTER, infinirtLaunchKernel(add, &good, bad, 4, s), "VALUE with a NULL value",
                {{"3"}});
        bad[3] = args[3];
        bad[0].value = nullptr;
        refused(INFINI_STATUS_NULL_POINTER, infinirtLaunchKernel(add, &good, bad, 4, s), "POINTER with a NULL value",
                {{"0"}});
        bad[0] = args[0];
        bad[1].size = 3;
        refused(INFINI_STATUS_BAD_PARAM, infinirtLaunchKernel(add, &good, bad, 4, s), "POINTER of size 3", {{"3"}});
        bad[1] = args[1];
        bad[3].size = 0;
        refused(INFINI_STATUS_BAD_PARAM, infinirtLaunchKernel(add, &good, bad, 4, s), "VALUE of size 0", {{"3"}});
        bad[3] = args[3];
        bad[2] = LocalArg(64);
        bad[2].value = &n;
        refused(INFINI_STATUS_BAD_PARAM, infinirtLaunchKernel(add, &good, bad, 4, s), "LOCAL with a value", {{"2"}});
    }
    for (int kind : {3, 99, -1}) {
        refused(INFINI_STATUS_BAD_PARAM, oorLaunchKernelArgKind(add, &good, args, 4, 1, kind, s), "unknown kind",
                {{std::to_string(kind)}});
    }
    refused(INFINI_STATUS_NULL_POINTER, infinirtLaunchKernel(add, nullptr, args, 4, s), "NULL config", {{"config"}});
    refused(INFINI_STATUS_NULL_POINTER, infinirtLaunchKernel(add, &good, nullptr, 2, s), "args NULL with num_args 2",
            {{"args"}});
    for (void *garbage : GarbageHandles()) {
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtLaunchKernel(add, &good, args, 4, garbage)) << garbage;
    }

    // Nothing refused ran; then the good launch runs, also with a config whose struct_size stops
    // before `flags` (the fields past it read as 0, whatever they hold).
    ASSERT_OK(infinirtStreamSynchronize(s));
    std::vector<float> c(kCount, -1.0f);
    ASSERT_OK(Download(&c, dc));
    EXPECT_EQ(c, std::vector<float>(kCount, 0.0f)) << "a refused launch ran";
    infinirtLaunchConfig_t shorter = good;
    shorter.struct_size = offsetof(infinirtLaunchConfig_t, flags);
    shorter.flags = 0xffffffffu;
    shorter.cluster[0] = 77;
    ASSERT_OK(infinirtLaunchKernel(add, &shorter, args, 4, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    ASSERT_OK(Download(&c, dc));
    EXPECT_EQ(c, std::vector<float>(kCount, 2.0f));
}

// Module and kernel handles die with infinirtModuleUnload; garbage and other kinds of handles are
// INVALID_HANDLE at every entry; a live module is not disturbed by any of it.
TEST_P(KernelBadInput, DeadAndGarbageHandles) {
    ScopedModule doomed;
    ASSERT_OK(doomed.Load(GetParam(), images_[0]));
    infinirtKernel_t dead_kernel = nullptr;
    ASSERT_OK(infinirtModuleGetKernel(&dead_kernel, doomed, "vector_add"));
    infinirtModule_t dead_module = doomed;
    doomed.Disown();
    ASSERT_OK(infinirtModuleUnload(dead_module));

    ScopedStream s;
    ASSERT_OK(s.Create());
    ScopedEvent e;
    const bool events = Declares(Feature::kEvents);
    if (events) {
        ASSERT_OK(e.Create());
    }
    std::vector<void *> modules = GarbageHandles();
    std::vector<void *> kernels = GarbageHandles();
    modules.push_back(dead_module);
    kernels.push_back(dead_kernel);
    modules.push_back(s); // a live handle of another kind
    kernels.push_back(s);
    infinirtKernel_t live_kernel = nullptr;
    ASSERT_OK(GetKernel(&live_kernel, "vector_add"));
    modules.push_back(live_kernel);
    kernels.push_back(module_.get());
    if (events) {
        modules.push_back(e);
        kernels.push_back(e);
    }

    const infinirtLaunchConfig_t config = LaunchConfig({1, 1, 1}, {1, 1, 1});
    for (void *m : modules) {
        SCOPED_TRACE(m);
        infinirtKernel_t k = kSentinel;
        void *g = kSentinel;
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtModuleGetKernel(&k, m, "vector_add"));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtModuleGetGlobal(&g, nullptr, m, "g_value"));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtModuleUnload(m));
        EXPECT_EQ(k, kSentinel);
        EXPECT_EQ(g, kSentinel);
    }
    for (void *k : kernels) {
        SCOPED_TRACE(k);
        int64_t value = -42;
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE,
                      infinirtKernelGetAttribute(&value, INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK, k));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE,
                      infinirtKernelSetAttribute(k, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, 0));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtLaunchKernel(k, &config, nullptr, 0, s));
        EXPECT_EQ(value, -42);
    }
    // The handles of modules and kernels are no streams, events or graphs either.
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamSynchronize(module_.get()));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamSynchronize(live_kernel));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphDestroy(live_kernel));

    // A new module may reuse the dead one's slot: the dead handles stay dead.
    ScopedModule reborn;
    ASSERT_OK(reborn.Load(GetParam(), images_[0]));
    infinirtKernel_t k = kSentinel;
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtModuleGetKernel(&k, dead_module, "vector_add"));
    int64_t value = 0;
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE,
                  infinirtKernelGetAttribute(&value, INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK, dead_kernel));
    EXPECT_OK(infinirtModuleGetKernel(&k, reborn, "vector_add"));
    EXPECT_OK(infinirtKernelGetAttribute(&value, INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK, live_kernel));
}

INSTANTIATE_ON_ALL_DEVICES(KernelBadInput);

// A kernel runs on a stream of its own device only: a stream of another device is BAD_PARAM
// naming both devices; its own stream works whatever device is current.
using DevicePair = std::pair<DeviceParam, DeviceParam>;

class KernelCrossDevice : public ::testing::TestWithParam<DevicePair> {
protected:
    const DeviceParam &owner() const { return GetParam().first; }
    const DeviceParam &other() const { return GetParam().second; }
};

TEST_P(KernelCrossDevice, LaunchOnAnotherDevicesStreamIsRefused) {
    REQUIRE_FEATURES_OF(owner(), Feature::kMemory, Feature::kStreams, Feature::kKernels);
    REQUIRE_FEATURES_OF(other(), Feature::kStreams);
    ASSERT_OK(infinirtSetDevice(owner().type, owner().id));
    ScopedModule module;
    infinirtKernel_t add = nullptr;
    ASSERT_TRUE(LoadKernel(owner(), &module, "vector_add", &add));
    constexpr int32_t kCount = 100;
    DeviceBuffer da;
    DeviceBuffer dc;
    ASSERT_OK(MallocFrom(&da, std::vector<float>(kCount, 4.0f)));
    ASSERT_OK(MallocFrom(&dc, std::vector<float>(kCount, 0.0f)));
    ScopedStream own;
    ASSERT_OK(own.Create());

    ASSERT_OK(infinirtSetDevice(other().type, other().id));
    ScopedStream foreign;
    ASSERT_OK(foreign.Create());
    const Outcome on_foreign = Capture(LaunchVectorAdd(add, da, da, dc, kCount, foreign));
    EXPECT_TRUE(Matches(on_foreign, INFINI_STATUS_BAD_PARAM, "launch on another device's stream"));
    EXPECT_TRUE(NamesDevice(on_foreign.message, owner()));
    EXPECT_TRUE(NamesDevice(on_foreign.message, other()));
    // NULL is the current device's default stream: the other device's.
    const Outcome on_default = Capture(LaunchVectorAdd(add, da, da, dc, kCount, nullptr));
    EXPECT_TRUE(Matches(on_default, INFINI_STATUS_BAD_PARAM, "launch on the default stream of the current (other) device"));
    EXPECT_TRUE(NamesDevice(on_default.message, owner()));
    EXPECT_TRUE(NamesDevice(on_default.message, other()));
    ASSERT_OK(infinirtStreamSynchronize(foreign));

    // The kernel's own stream works while the other device is current, and leaves it current.
    ASSERT_OK(LaunchVectorAdd(add, da, da, dc, kCount, own));
    ASSERT_OK(infinirtStreamSynchronize(own));
    std::vector<float> c(kCount, 0.0f);
    ASSERT_OK(Download(&c, dc));
    EXPECT_EQ(c, std::vector<float>(kCount, 8.0f));
    infiniDevice_t t = INFINI_DEVICE_TYPE_COUNT;
    int i = -1;
    ASSERT_OK(infinirtGetDevice(&t, &i));
    EXPECT_EQ(t, other().type);
    EXPECT_EQ(i, other().id);
}

// A POINTER argument holding device memory infinirt allocated on a device of another type.
TEST_P(KernelCrossDevice, DeviceMemoryOfAnotherTypeIsRefused) {
    if (owner().type == other().type) {
        GTEST_SKIP() << "the partner is a device of the same type";
    }
    REQUIRE_FEATURES_OF(owner(), Feature::kMemory, Feature::kStreams, Feature::kKernels);
    REQUIRE_FEATURES_OF(other(), Feature::kMemory);
    ASSERT_OK(infinirtSetDevice(other().type, other().id));
    DeviceBuffer elsewhere;
    ASSERT_OK(elsewhere.Malloc(64 * sizeof(float)));
    ASSERT_OK(infinirtSetDevice(owner().type, owner().id));
    ScopedModule module;
    infinirtKernel_t add = nullptr;
    ASSERT_TRUE(LoadKernel(owner(), &module, "vector_add", &add));
    DeviceBuffer mine;
    ASSERT_OK(mine.Malloc(64 * sizeof(float)));
    const Outcome refused = Capture(LaunchVectorAdd(add, mine, elsewhere, mine, 64, nullptr));
    EXPECT_TRUE(Matches(refused, INFINI_STATUS_BAD_PARAM, "vector_add with another device type's memory"));
    EXPECT_TRUE(NamesDevice(refused.message, other()));
    EXPECT_OK(infinirtStreamSynchronize(nullptr));
}

INSTANTIATE_TEST_SUITE_P(Pairs, KernelCrossDevice, ::testing::ValuesIn(DevicePairs()),
                         [](const ::testing::TestParamInfo<DevicePair> &info) {
                             return InstanceName(info.param.first) + "_with_" + InstanceName(info.param.second);
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(KernelCrossDevice);

} // namespace
} // namespace infinirt_test
