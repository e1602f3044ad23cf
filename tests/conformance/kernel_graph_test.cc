// Kernel launches under stream capture: recorded, not run; replayed in order by each launch of
// the instantiated graph with the argument values of capture time; and a graph that launches a
// module's kernels keeps the module's code after infinirtModuleUnload.
#include "kernel_images.h"

#include <cstring>

namespace infinirt_test {
namespace {

class KernelGraph : public KernelTest {
protected:
    KernelGraph() : KernelTest({Feature::kMemory, Feature::kStreams, Feature::kKernels, Feature::kStreamCapture}) {}
};

constexpr int32_t kN = 777;
constexpr size_t kBytes = kN * sizeof(float);

std::vector<float> Inputs(int seed, int modulo) {
    std::vector<float> v(kN);
    for (int32_t i = 0; i < kN; ++i) {
        v[i] = static_cast<float>((i + seed) % modulo);
    }
    return v;
}

// vector_add, vector_add on its output, then saxpy_mixed on that: captured once, replayed twice
// on new inputs. The scalars, the struct and the pointer slots are changed on the host after
// capture: the replays use the values of capture time.
TEST_P(KernelGraph, CaptureAndReplayALaunchSequence) {
    infinirtKernel_t add = nullptr;
    infinirtKernel_t saxpy = nullptr;
    ASSERT_OK(GetKernel(&add, "vector_add"));
    ASSERT_OK(GetKernel(&saxpy, "saxpy_mixed"));
    DeviceBuffer a;
    DeviceBuffer b;
    DeviceBuffer c;
    DeviceBuffer d;
    DeviceBuffer e;
    DeviceBuffer decoy;
    for (DeviceBuffer *buffer : {&a, &b, &c, &d, &e, &decoy}) {
        ASSERT_OK(buffer->Malloc(kBytes));
        ASSERT_OK(infinirtMemset(*buffer, 0, kBytes));
    }
    ScopedStream s;
    ASSERT_OK(s.Create());
    Defer drain([&] { infinirtStreamSynchronize(s); });

    // The host variables the argument list points at.
    void *pa = a;
    void *pb = b;
    void *pc = c;
    void *pd = d;
    void *pe = e;
    int32_t n = kN;
    SaxpyScalars sc;

    const uint32_t blocks = (kN + 127) / 128;
    const infinirtLaunchConfig_t config = LaunchConfig({blocks, 1, 1}, {128, 1, 1});
    const infinirtKernelArg_t first[] = {PointerArg(&pa), PointerArg(&pb), PointerArg(&pc), ValueArg(&n)};
    const infinirtKernelArg_t second[] = {PointerArg(&pc), PointerArg(&pb), PointerArg(&pd), ValueArg(&n)};
    const infinirtKernelArg_t third[] = {PointerArg(&pe),  PointerArg(&pd),  ValueArg(&sc.a), ValueArg(&sc.b),
                                         ValueArg(&sc.k), ValueArg(&sc.big), ValueArg(&sc.p), ValueArg(&n)};

    ASSERT_OK(infinirtStreamBeginCapture(s, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL));
    ASSERT_OK(infinirtLaunchKernel(add, &config, first, 4, s));    // c = a + b
    ASSERT_OK(infinirtLaunchKernel(add, &config, second, 4, s));   // d = c + b
    ASSERT_OK(infinirtLaunchKernel(saxpy, &config, third, 8, s));  // e = a d + kAddend
    ScopedGraph graph;
    ASSERT_OK(graph.EndCapture(s));
    ASSERT_NE(graph.get(), nullptr);

    ASSERT_OK(Upload(a, Inputs(1, 13)));
    ASSERT_OK(infinirtStreamSynchronize(s));
    std::vector<float> out(kN, -1.0f);
    ASSERT_OK(Download(&out, e));
    EXPECT_EQ(out, std::vector<float>(kN, 0.0f)) << "a captured launch ran during capture";

    // Everything the arguments pointed at changes after capture.
    pa = decoy;
    pb = decoy;
    pc = decoy;
    pd = decoy;
    pe = decoy;
    n = 1;
    sc.a = 100.0f;
    sc.b = 1000.0;
    sc.k = -50;
    sc.big = int64_t{77} << 32;
    sc.p.tag = 0;
    sc.p.v[3] = -9.0f;

    ScopedGraphExec exec;
    char log[256];
    std::memset(log, 'x', sizeof log);
    ASSERT_OK(exec.Instantiate(graph, nullptr, log, sizeof log)) << LogText(log, sizeof log);

    for (int launch = 0; launch < 2; ++launch) {
        SCOPED_TRACE("graph launch " + std::to_string(launch));
        const std::vector<float> ha = Inputs(launch * 5 + 2, 13);
        const std::vector<float> hb = Inputs(launch * 3 + 1, 7);
        ASSERT_OK(Upload(a, ha));
        ASSERT_OK(Upload(b, hb));
        ASSERT_OK(infinirtMemset(e, 0, kBytes));
        ASSERT_OK(infinirtGraphLaunch(exec, s));
        ASSERT_OK(infinirtStreamSynchronize(s));
        ASSERT_OK(Download(&out, e));
        for (int32_t i = 0; i < kN; ++i) {
            const float dv = ha[i] + 2.0f * hb[i];
            ASSERT_EQ(out[i], SaxpyScalars().a * dv + SaxpyScalars::kAddend) << "e[" << i << "]";
        }
    }
    std::vector<float> untouched(kN, -1.0f);
    ASSERT_OK(Download(&untouched, decoy));
    EXPECT_EQ(untouched, std::vector<float>(kN, 0.0f)) << "a replay used a pointer slot's value after capture";
}

// Unloading a module whose kernels a live graph or graph exec launches succeeds at once (the
// handles die), and the graph keeps working: the code is released when the last holder goes.
TEST_P(KernelGraph, UnloadWhileAGraphHoldsALaunch) {
    const std::vector<float> ha = Inputs(4, 11);
    const std::vector<float> hb = Inputs(9, 5);
    DeviceBuffer a;
    DeviceBuffer b;
    DeviceBuffer c;
    ASSERT_OK(MallocFrom(&a, ha));
    ASSERT_OK(MallocFrom(&b, hb));
    ASSERT_OK(c.Malloc(kBytes));
    ScopedStream s;
    ASSERT_OK(s.Create());
    Defer drain([&] { infinirtStreamSynchronize(s); });

    // Twice: the exec exists before the unload; then only the graph, instantiated after it.
    for (bool exec_first : {true, false}) {
        SCOPED_TRACE(exec_first ? "graph exec instantiated before the unload" : "graph instantiated after the unload");
        ScopedModule module;
        infinirtKernel_t add = nullptr;
        ASSERT_TRUE(LoadKernel(GetParam(), &module, "vector_add", &add));
        ASSERT_OK(infinirtStreamBeginCapture(s, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL));
        ASSERT_OK(LaunchVectorAdd(add, a, b, c, kN, s));
        ScopedGraph graph;
        ASSERT_OK(graph.EndCapture(s));
        ScopedGraphExec exec;
        if (exec_first) {
            ASSERT_OK(exec.Instantiate(graph));
        }

        module.Disown();
        ASSERT_OK(infinirtModuleUnload(module));
        infinirtKernel_t k = nullptr;
        int64_t value = 0;
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtModuleGetKernel(&k, module, "vector_add"));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtModuleUnload(module));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE,
                      infinirtKernelGetAttribute(&value, INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK, add));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, LaunchVectorAdd(add, a, b, c, kN, s));

        if (!exec_first) {
            ASSERT_OK(exec.Instantiate(graph));
        }
        for (int launch = 0; launch < 2; ++launch) {
            ASSERT_OK(infinirtMemset(c, 0, kBytes));
            ASSERT_OK(infinirtGraphLaunch(exec, s));
            ASSERT_OK(infinirtStreamSynchronize(s));
            std::vector<float> hc(kN);
            ASSERT_OK(Download(&hc, c));
            for (int32_t i = 0; i < kN; ++i) {
                ASSERT_EQ(hc[i], ha[i] + hb[i]) << "launch " << launch << ", c[" << i << "]";
            }
        }
    }
}

INSTANTIATE_ON_ALL_DEVICES(KernelGraph);

} // namespace
} // namespace infinirt_test
