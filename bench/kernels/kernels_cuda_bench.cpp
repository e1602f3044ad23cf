/*
 * kernels_cuda_bench - what an infinirt kernel launch costs over the CUDA driver, measured side
 * by side in one run on the same objects: the CUstream behind an infinirt stream
 * (infinirtStreamGetNativeHandle) and a CUfunction of the same PTX image loaded with
 * cuModuleLoadData in the device's primary context.
 *  - launch overhead of an empty kernel (1 block of 1 thread): infinirtLaunchKernel against
 *    cuLaunchKernel, in batches drained between them (untimed); limit: added <= 20 ns (the goal of
 *    every enqueue);
 *    and the same call by call (kernel_bench.h, interleaved), for information;
 *  - launch + synchronise latency: infinirtLaunchKernel + infinirtStreamSynchronize against
 *    cuLaunchKernel + cuStreamSynchronize;
 *  - graph replay: one infinirtGraphLaunch of 100 captured launches + sync against the same 100
 *    launches issued directly + sync, and against cuGraphLaunch of the same 100 launches
 *    captured natively.
 * Batches alternate infinirt and native (ABBA); each figure is the median over batches, and a
 * limit is judged on the median of the per-round differences (kernel_bench.h, Pair::added). Prints
 * a table and PASS/FAIL per limit; exits 0 whatever the timings (1 when a call fails).
 * Usage: infinirt-kernels-cuda-bench [--quick] [--launches=N] [--split]   (--quick: a smoke run with
 *   tiny counts; --launches: launches per timed batch of the overhead row, default 500; --split:
 *   only the launch overhead, three times, split into the plugin's part and the loader's part)
 */
#include "kernel_bench.h"

#include "cuda_native_api.h"

#include <infinirt_plugin.h>

#include <dlfcn.h>
#include <string>
#include <vector>

namespace {

using infinirt::cuda::nativeApi;
using namespace infinirt_bench;

/* Used when nvcc was not found at build time (INFINIRT_BENCH_KERNELS_PTX is ""), or when the
 * driver cannot JIT the PTX it produced (a toolkit newer than the driver). */
const char *const kFallbackPtx = kEmptyKernelPtx;

bool checkCu(CUresult rc, const char *what) {
    if (rc != CUDA_SUCCESS) {
        const char *name = "?";
        if (nativeApi().cuGetErrorName != nullptr) {
            nativeApi().cuGetErrorName(rc, &name);
        }
        std::fprintf(stderr, "%s failed: %s (%d)\n", what, name, static_cast<int>(rc));
        g_failed = true;
        return false;
    }
    return true;
}

template <typename Fn> Fn resolveOrNull(const char *name, int version) {
    return reinterpret_cast<Fn>(infinirt::cuda::resolve(name, version));
}


/* --split: where the added time goes. The cuda plugin's own table (the plugin file the loader
 * loaded, queried again) launches the same CUfunction on the same CUstream without the loader, so
 * infinirt - native = (plugin - native) + (infinirt - plugin), each measured call by call. */
void noError(const char *) {}
void noLog(infinirtLogLevel_t, const char *) {}
const infinirtPluginTable_t *cudaPluginTable() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(&infinirtLaunchKernel), &info) == 0 || info.dli_fname == nullptr) {
        return nullptr;
    }
    std::string dir = info.dli_fname;
    dir = dir.substr(0, dir.rfind('/'));
    void *so = dlopen((dir + "/infinirt/libinfinirt-cuda.so").c_str(), RTLD_NOW | RTLD_NOLOAD);
    auto query = so ? reinterpret_cast<infinirtPluginQueryFn>(dlsym(so, INFINIRT_PLUGIN_ENTRY_NAME)) : nullptr;
    static infinirtPluginHost_t host{sizeof(infinirtPluginHost_t), INFINIRT_PLUGIN_INTERFACE_VERSION, noError, noLog};
    const infinirtPluginTable_t *table = nullptr;
    uint32_t version = 0;
    if (query == nullptr || query(INFINIRT_PLUGIN_INTERFACE_VERSION, &host, &version, &table) != INFINI_STATUS_SUCCESS) {
        return nullptr;
    }
    return table;
}
} // namespace

int main(int argc, char **argv) {
    const bool quick = quickMode(argc, argv);
    const int rounds = quick ? 2 : 51;
    /* Calls per timed batch: launches (drained between batches), launch + sync, graph replays. */
    const int launches = intOption(argc, argv, "--launches", quick ? 50 : 500);
    const int syncs = quick ? 10 : 200;
    const int replays = quick ? 2 : 20;
    constexpr int kGraphLaunches = 100;

    const char *why = nullptr;
    const bool loaded = infinirt::cuda::load(&why);
    int count = 0;
    if (infinirtGetDeviceCount(INFINI_DEVICE_NVIDIA, &count) != INFINI_STATUS_SUCCESS || !loaded || count == 0) {
        std::printf("kernels_cuda_bench: no CUDA device, nothing measured (%s)\n", loaded ? "0 devices" : why);
        return 0;
    }
    auto cuModuleLoadData = resolveOrNull<PFN_cuModuleLoadData_v2000>("cuModuleLoadData", 2000);
    auto cuModuleUnload = resolveOrNull<PFN_cuModuleUnload_v2000>("cuModuleUnload", 2000);
    auto cuModuleGetFunction = resolveOrNull<PFN_cuModuleGetFunction_v2000>("cuModuleGetFunction", 2000);
    auto cuLaunchKernel = resolveOrNull<PFN_cuLaunchKernel_v4000>("cuLaunchKernel", 4000);
    if (!cuModuleLoadData || !cuModuleUnload || !cuModuleGetFunction || !cuLaunchKernel) {
        std::fprintf(stderr,
                     "kernels_cuda_bench: the driver lacks cuModuleLoadData/cuModuleGetFunction/cuLaunchKernel\n");
        return 1;
    }

    check(infinirtSetDevice(INFINI_DEVICE_NVIDIA, 0), "infinirtSetDevice");
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof props;
    check(infinirtGetDeviceProperties(INFINI_DEVICE_NVIDIA, 0, &props), "infinirtGetDeviceProperties");
    infinirtStream_t stream = nullptr;
    check(infinirtStreamCreate(&stream), "infinirtStreamCreate");
    void *native = nullptr;
    check(infinirtStreamGetNativeHandle(stream, &native), "infinirtStreamGetNativeHandle");
    CUstream cs = static_cast<CUstream>(native);
    check(infinirtDeviceGetNativeContext(INFINI_DEVICE_NVIDIA, 0, &native), "infinirtDeviceGetNativeContext");
    CUcontext ctx = static_cast<CUcontext>(native);
    if (g_failed) {
        return 1;
    }

    /* The same image on both sides. */
    std::string ptx = *INFINIRT_BENCH_KERNELS_PTX ? readFile(INFINIRT_BENCH_KERNELS_PTX) : std::string();
    const char *ptx_origin = INFINIRT_BENCH_KERNELS_PTX;
    infinirtModule_t module = nullptr;
    if (ptx.empty() || !loadModule(&module, INFINI_DEVICE_NVIDIA, 0, INFINIRT_MODULE_FORMAT_PTX, ptx)) {
        std::printf("kernels_cuda_bench: %s; using the built-in PTX of the empty kernel\n",
                    ptx.empty() ? "no PTX built by nvcc" : "the nvcc PTX does not load");
        ptx = kFallbackPtx;
        ptx_origin = "built-in PTX";
        if (!loadModule(&module, INFINI_DEVICE_NVIDIA, 0, INFINIRT_MODULE_FORMAT_PTX, ptx)) {
            return 1;
        }
    }
    infinirtKernel_t kernel = nullptr;
    check(infinirtModuleGetKernel(&kernel, module, "empty"), "infinirtModuleGetKernel(empty)");
    checkCu(nativeApi().cuCtxSetCurrent(ctx), "cuCtxSetCurrent(primary context)");
    CUmodule cmod = nullptr;
    CUfunction cfn = nullptr;
    checkCu(cuModuleLoadData(&cmod, ptx.c_str()), "cuModuleLoadData");
    if (cmod != nullptr) {
        checkCu(cuModuleGetFunction(&cfn, cmod, "empty"), "cuModuleGetFunction(empty)");
    }
    if (g_failed) {
        return 1;
    }

    const infinirtLaunchConfig_t config = launchConfig(1, 1);
    auto ours = [&] { infinirtLaunchKernel(kernel, &config, nullptr, 0, stream); };
    auto theirs = [&] { cuLaunchKernel(cfn, 1, 1, 1, 1, 1, 1, 0, cs, nullptr, nullptr); };
    auto drain = [&] { checkCu(nativeApi().cuStreamSynchronize(cs), "cuStreamSynchronize"); };
    /* Every call is checked once before timing; the timed loops ignore the statuses. */
    check(infinirtLaunchKernel(kernel, &config, nullptr, 0, stream), "infinirtLaunchKernel");
    checkCu(cuLaunchKernel(cfn, 1, 1, 1, 1, 1, 1, 0, cs, nullptr, nullptr), "cuLaunchKernel");
    check(infinirtStreamSynchronize(stream), "infinirtStreamSynchronize");

    /* Graphs: 100 launches captured through infinirt, and the same 100 captured natively. */
    infinirtGraph_t graph = nullptr;
    infinirtGraphExec_t exec = nullptr;
    captureLaunches(kernel, config, stream, kGraphLaunches, &graph, &exec);
    CUgraph cgraph = nullptr;
    CUgraphExec cexec = nullptr;
    checkCu(nativeApi().cuStreamBeginCapture(cs, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
    for (int i = 0; i < kGraphLaunches; ++i) {
        checkCu(cuLaunchKernel(cfn, 1, 1, 1, 1, 1, 1, 0, cs, nullptr, nullptr), "cuLaunchKernel (capturing)");
    }
    checkCu(nativeApi().cuStreamEndCapture(cs, &cgraph), "cuStreamEndCapture");
    checkCu(nativeApi().cuGraphInstantiateWithFlags(&cexec, cgraph, 0), "cuGraphInstantiateWithFlags");
    check(infinirtGraphLaunch(exec, stream), "infinirtGraphLaunch");
    checkCu(nativeApi().cuGraphLaunch(cexec, cs), "cuGraphLaunch");
    drain();
    if (g_failed) {
        return 1;
    }

    if (hasFlag(argc, argv, "--split")) {
        const infinirtPluginTable_t *table = cudaPluginTable();
        if (table == nullptr || table->launch_kernel == nullptr) {
            std::fprintf(stderr, "split: no cuda plugin table\n");
            return 1;
        }
        auto plugin = [&] { table->launch_kernel(0, cfn, &config, nullptr, 0, cs); };
        check(table->launch_kernel(0, cfn, &config, nullptr, 0, cs), "plugin launch_kernel");
        for (int rep = 0; rep < 3; ++rep) {
            const Pair whole = interleaved(rounds, launches / 2, ours, theirs, drain);
            const Pair plug = interleaved(rounds, launches / 2, plugin, theirs, drain);
            const Pair loader = interleaved(rounds, launches / 2, ours, plugin, drain);
            std::printf("split: infinirt-native %+.1f ns, plugin-native %+.1f ns, infinirt-plugin %+.1f ns\n",
                        whole.added, plug.added, loader.added);
        }
        return 0;
    }
    std::vector<Row> rows;
    rows.push_back(addedAtMostNs("launch, empty kernel 1x1", paired(rounds, launches, ours, theirs, drain), 20.0));
    rows.push_back(info("launch 1x1, call by call", "ns", interleaved(rounds, launches / 2, ours, theirs, drain)));
    rows.push_back(info("launch + sync, empty kernel 1x1", "ns", launchSync(rounds, syncs, kernel, config, stream, [&] {
                            theirs();
                            nativeApi().cuStreamSynchronize(cs);
                        })));
    Pair graph_vs_native = paired(
        rounds, replays,
        [&] {
            infinirtGraphLaunch(exec, stream);
            infinirtStreamSynchronize(stream);
        },
        [&] {
            nativeApi().cuGraphLaunch(cexec, cs);
            nativeApi().cuStreamSynchronize(cs);
        },
        [] {});
    rows.push_back(info("graph of 100 launches + sync (vs direct)", "us",
                        graphVsDirect(rounds, replays, exec, kernel, config, stream, kGraphLaunches)));
    rows.push_back(info("graph of 100 launches + sync (vs cuGraph)", "us",
                        {graph_vs_native.ours / 1000.0, graph_vs_native.anchor / 1000.0, graph_vs_native.added / 1000.0}));

    const std::string title =
        format("cuda kernel launch on %s (%s, driver %s), image: %s; median of %d batches per side of %d "
               "(launch), %d (launch + sync), %d (graph) calls",
               props.name, props.architecture, props.driver_version, ptx_origin, 2 * rounds, launches, syncs, replays);
    printTable(title,
               "cuLaunchKernel / cuStreamSynchronize on the same CUstream and a CUfunction of the same PTX; "
               "graph rows: the same 100 launches made directly through infinirt, and cuGraphLaunch of them "
               "captured natively",
               rows);

    checkCu(nativeApi().cuGraphExecDestroy(cexec), "cuGraphExecDestroy");
    checkCu(nativeApi().cuGraphDestroy(cgraph), "cuGraphDestroy");
    check(infinirtGraphExecDestroy(exec), "infinirtGraphExecDestroy");
    check(infinirtGraphDestroy(graph), "infinirtGraphDestroy");
    checkCu(cuModuleUnload(cmod), "cuModuleUnload");
    check(infinirtModuleUnload(module), "infinirtModuleUnload");
    check(infinirtStreamDestroy(stream), "infinirtStreamDestroy");
    return g_failed ? 1 : 0;
}
