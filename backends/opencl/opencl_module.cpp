// opencl_module.cpp - modules (cl_program built from OpenCL C, SPIR-V or a device binary), their
// kernels (one cl_kernel per name), program-scope variables and kernel attributes.
#include "opencl_backend.h"
#include "opencl_device.h"
#include "opencl_module.h"

#include "opencl_native_api.h"

#include "common/module_rank.hpp"
#include "common/spirv.hpp"
#include "common/text.hpp"

#include <CL/cl_ext.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace infinirt::opencl {
namespace {

// How many lines of a failed build's log the error detail carries, and how much of each.
constexpr int kDetailLogLines = 4;
constexpr size_t kDetailLineChars = 160;
// How much of the program's kernel list a SYMBOL_NOT_FOUND detail carries.
constexpr size_t kDetailNameChars = 240;

// A variable-length device info array of T ([] when the query fails, e.g. before OpenCL 3.0).
template <typename T> std::vector<T> deviceInfoArray(cl_device_id id, cl_device_info what) {
    size_t size = 0;
    if (nativeApi().clGetDeviceInfo(id, what, 0, nullptr, &size) != CL_SUCCESS || size < sizeof(T)) {
        return {};
    }
    std::vector<T> values(size / sizeof(T));
    if (nativeApi().clGetDeviceInfo(id, what, values.size() * sizeof(T), values.data(), nullptr) != CL_SUCCESS) {
        return {};
    }
    return values;
}

// The -cl-std option that makes program-scope variables compile (see CodeTraits::std_option).
std::string stdOption(cl_device_id id) {
    bool c20 = false, c30 = false;
    for (const cl_name_version &v : deviceInfoArray<cl_name_version>(id, CL_DEVICE_OPENCL_C_ALL_VERSIONS)) {
        c20 = c20 || CL_VERSION_MAJOR(v.version) == 2;
        c30 = c30 || CL_VERSION_MAJOR(v.version) == 3;
    }
    bool globals30 = false;
    for (const cl_name_version &f : deviceInfoArray<cl_name_version>(id, CL_DEVICE_OPENCL_C_FEATURES)) {
        globals30 = globals30 || std::strcmp(f.name, "__opencl_c_program_scope_global_variables") == 0;
    }
    if (c30 && globals30) {
        return "-cl-std=CL3.0";
    }
    // An OpenCL 2.x device has no ALL_VERSIONS query: its OpenCL C version says it.
    int major = 0, minor = 0;
    if (!c20 &&
        std::sscanf(deviceString(id, CL_DEVICE_OPENCL_C_VERSION).c_str(), "OpenCL C %d.%d", &major, &minor) == 2) {
        c20 = major == 2;
    }
    return c20 ? "-cl-std=CL2.0" : "";
}

// See CodeTraits::flush_launches.
bool submitsWithoutFlush(Device &dev) {
    const NativeApi &cl = nativeApi();
    cl_int err = CL_SUCCESS;
    cl_command_queue queue = cl.clCreateCommandQueueWithProperties(dev.context, dev.id, nullptr, &err);
    if (!queue) {
        return false;
    }
    void *scratch = svmAllocScratch(dev, 64);
    cl_int state = CL_QUEUED;
    if (scratch) {
        const unsigned char zero = 0;
        cl_event fill = nullptr;
        if (cl.clEnqueueSVMMemFill(queue, scratch, &zero, 1, 1, 0, nullptr, &fill) == CL_SUCCESS) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            if (cl.clGetEventInfo(fill, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(state), &state, nullptr) !=
                CL_SUCCESS) {
                state = CL_QUEUED;
            }
            cl.clReleaseEvent(fill);
        }
        cl.clFinish(queue);
        svmFreeScratch(dev, scratch);
    }
    cl.clReleaseCommandQueue(queue);
    return state >= CL_COMPLETE && state <= CL_SUBMITTED;
}

bool flushLaunches(Device &dev) {
    const char *env = secure_getenv("INFINIRT_OPENCL_FLUSH_LAUNCHES");
    if (env && (std::strcmp(env, "0") == 0 || std::strcmp(env, "1") == 0)) {
        return env[0] == '1';
    }
    const bool flush = !submitsWithoutFlush(dev);
    common::logMessage(INFINIRT_LOG_INFO, "opencl:%d: %s", dev.index,
                       flush ? "a command waits for clFlush here: every launch is flushed"
                             : "commands are submitted when enqueued: launches are not flushed");
    return flush;
}

void fillCodeTraits(Device &dev) {
    CodeTraits &code = dev.code;
    if (nativeApi().clCreateProgramWithIL) {
        code.il_versions = deviceString(dev.id, CL_DEVICE_IL_VERSION);
    }
    code.std_option = stdOption(dev.id);
    nativeApi().clGetDeviceInfo(dev.id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(code.local_mem), &code.local_mem, nullptr);
    const std::vector<size_t> items = deviceInfoArray<size_t>(dev.id, CL_DEVICE_MAX_WORK_ITEM_SIZES);
    for (size_t i = 0; i < 3; ++i) {
        // A device of fewer dimensions (never below 3 in practice) takes 1 in the others.
        code.max_item_sizes[i] = i < items.size() ? items[i] : 1;
    }
    if (hasExtension(deviceString(dev.id, CL_DEVICE_EXTENSIONS), "cl_intel_global_variable_pointers")) {
        code.global_variable_pointer = reinterpret_cast<GlobalVariablePointerFn>(
            nativeApi().clGetExtensionFunctionAddressForPlatform(dev.platform, "clGetDeviceGlobalVariablePointerINTEL"));
    }
    code.flush_launches = flushLaunches(dev);
}

// CL_PROGRAM_BUILD_LOG of the device, without the trailing NUL and blank lines ("" if none).
std::string buildLog(cl_program program, cl_device_id id) {
    size_t size = 0;
    if (!program || nativeApi().clGetProgramBuildInfo(program, id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS ||
        size == 0) {
        return "";
    }
    std::string text(size, '\0');
    if (nativeApi().clGetProgramBuildInfo(program, id, CL_PROGRAM_BUILD_LOG, size, text.data(), nullptr) != CL_SUCCESS) {
        return "";
    }
    text.resize(std::strlen(text.c_str()));
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
        text.pop_back();
    }
    return text;
}

// The first kDetailLogLines non-blank lines of `log` for an error detail.
std::string firstLines(const std::string &log) {
    const std::string lines = common::firstLines(log, kDetailLogLines, kDetailLineChars);
    return lines.empty() ? "(the build log is empty)" : lines;
}

// A program being put together; released unless handed over (release()).
struct ProgramRelease {
    void operator()(cl_program program) const { nativeApi().clReleaseProgram(program); }
};
using ProgramRef = std::unique_ptr<std::remove_pointer_t<cl_program>, ProgramRelease>;

// What one module load accumulates: the log handed to the caller and the device it builds for.
struct Build {
    Device &dev;
    std::string log;
    // Whether OpenCL C builds get -cl-kernel-arg-info (sourceOptions); false on the second build
    // of a module whose first build with it failed (moduleLoad).
    bool arg_info = true;
    // Set by sourceOptions when it added -cl-kernel-arg-info to an image's options.
    bool added_arg_info = false;
    // Appends a program's log, under a heading when the module has several images.
    void addLog(const std::string &heading, const std::string &text) {
        if (text.empty()) {
            return;
        }
        if (!log.empty()) {
            log += '\n';
        }
        log += heading.empty() ? text : heading + ":\n" + text;
    }
};

// The options an OpenCL C compile uses: the image's, plus the device's -cl-std unless they name
// one, plus -cl-kernel-arg-info unless they have it or build.arg_info is off (launches check
// arguments against it).
std::string sourceOptions(Build &build, const char *options) {
    const Device &dev = build.dev;
    std::string out = options ? options : "";
    if (!dev.code.std_option.empty() && out.find("-cl-std=") == std::string::npos) {
        out += (out.empty() ? "" : " ") + dev.code.std_option;
    }
    if (build.arg_info && out.find("-cl-kernel-arg-info") == std::string::npos) {
        out += out.empty() ? "-cl-kernel-arg-info" : " -cl-kernel-arg-info";
        build.added_arg_info = true;
    }
    return out;
}

infiniStatus_t noIl(const Device &dev, size_t index) {
    return common::fail(INFINI_STATUS_NOT_IMPLEMENTED,
                        "image %zu is SPIR-V, but opencl:%d (\"%s\", %s) takes no IL (CL_DEVICE_IL_VERSION: %s%s); "
                        "load OpenCL C source or a DEVICE_BINARY instead",
                        index, dev.index, dev.name.c_str(), dev.version.c_str(),
                        dev.code.il_versions.empty() ? "none" : dev.code.il_versions.c_str(),
                        nativeApi().clCreateProgramWithIL ? "" : ", and the ICD loader lacks clCreateProgramWithIL");
}

// A program object for `image` (index `index`), not yet built.
infiniStatus_t createProgram(Build &build, const infinirtModuleImage_t &image, size_t index, ProgramRef *out) {
    Device &dev = build.dev;
    cl_int err = CL_SUCCESS;
    cl_program program = nullptr;
    switch (image.format) {
    case INFINIRT_MODULE_FORMAT_OPENCL_C: {
        const char *text = static_cast<const char *>(image.data);
        size_t length = image.size;
        while (length > 0 && text[length - 1] == '\0') {
            --length; // a trailing NUL is allowed; a length of 0 would mean "NUL-terminated"
        }
        if (length == 0) {
            return common::fail(INFINI_STATUS_BAD_PARAM, "image %zu is OpenCL C text of no characters", index);
        }
        program = nativeApi().clCreateProgramWithSource(dev.context, 1, &text, &length, &err);
        if (!program) {
            return nativeFailure("clCreateProgramWithSource", err, "for image %zu on opencl:%d", index, dev.index);
        }
        break;
    }
    case INFINIRT_MODULE_FORMAT_SPIRV:
        if (dev.code.il_versions.empty()) {
            return noIl(dev, index);
        }
        program = nativeApi().clCreateProgramWithIL(dev.context, image.data, image.size, &err);
        if (!program) {
            return nativeFailure("clCreateProgramWithIL", err, "for image %zu (%s) on opencl:%d (IL versions: %s)",
                                 index, common::formatBytes(image.size).c_str(), dev.index,
                                 dev.code.il_versions.c_str());
        }
        break;
    case INFINIRT_MODULE_FORMAT_DEVICE_BINARY: {
        const unsigned char *bytes = static_cast<const unsigned char *>(image.data);
        cl_int binary_status = CL_SUCCESS;
        program = nativeApi().clCreateProgramWithBinary(dev.context, 1, &dev.id, &image.size, &bytes, &binary_status, &err);
        if (!program) {
            return nativeFailure("clCreateProgramWithBinary", err,
                                 "for image %zu (%s; binary status %s): not a binary of opencl:%d (\"%s\", %s %s)",
                                 index, common::formatBytes(image.size).c_str(), nativeErrorName(binary_status),
                                 dev.index, dev.name.c_str(), dev.platform_name.c_str(), dev.driver_version.c_str());
        }
        break;
    }
    default:
        return common::fail(INFINI_STATUS_BAD_PARAM,
                            "image %zu is %s; the opencl backend loads OPENCL_C, SPIRV and DEVICE_BINARY images", index,
                            common::moduleFormatName(image.format));
    }
    *out = ProgramRef(program);
    return INFINI_STATUS_SUCCESS;
}

// The status of a failed build/compile/link: BUILD_FAILED with the log's first lines for the
// failure codes, the error table's status otherwise.
infiniStatus_t buildFailure(Build &build, const char *call, cl_int err, const std::string &what,
                            const std::string &options, const std::string &log) {
    if (err == CL_BUILD_PROGRAM_FAILURE || err == CL_COMPILE_PROGRAM_FAILURE || err == CL_LINK_PROGRAM_FAILURE) {
        return common::fail(INFINI_STATUS_BUILD_FAILED, "%s failed on opencl:%d (\"%s\") for %s: %s", call,
                            build.dev.index, build.dev.name.c_str(), what.c_str(), firstLines(log).c_str());
    }
    return nativeFailure(call, err, "for %s on opencl:%d with options \"%s\"%s%s", what.c_str(), build.dev.index,
                         options.c_str(), log.empty() ? "" : ": ", firstLines(log).c_str());
}

// One image: created and built.
infiniStatus_t buildOne(Build &build, const infinirtModuleImage_t &image, ProgramRef *out) {
    ProgramRef program;
    infiniStatus_t status = createProgram(build, image, 0, &program);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    const std::string options = image.format == INFINIRT_MODULE_FORMAT_OPENCL_C
                                    ? sourceOptions(build, image.options)
                                    : std::string(image.options ? image.options : "");
    const cl_int err = nativeApi().clBuildProgram(program.get(), 1, &build.dev.id, options.c_str(), nullptr, nullptr);
    const std::string log = buildLog(program.get(), build.dev.id);
    build.addLog("", log);
    if (err != CL_SUCCESS) {
        return buildFailure(build, "clBuildProgram", err, std::string("the ") + common::moduleFormatName(image.format) + " image",
                            options, log);
    }
    *out = std::move(program);
    return INFINI_STATUS_SUCCESS;
}

// Several images: each compiled with its options, then linked into one executable.
infiniStatus_t compileAndLink(Build &build, const infinirtModuleImage_t *images, size_t count, ProgramRef *out) {
    for (size_t i = 0; i < count; ++i) {
        if (images[i].format == INFINIRT_MODULE_FORMAT_DEVICE_BINARY) {
            return common::fail(INFINI_STATUS_BAD_PARAM,
                                "image %zu of %zu is a DEVICE_BINARY: the opencl backend links only OPENCL_C and "
                                "SPIRV images (load a device binary on its own)",
                                i, count);
        }
    }
    std::vector<ProgramRef> compiled;
    std::vector<cl_program> objects;
    compiled.reserve(count);
    for (size_t i = 0; i < count; ++i) {
        ProgramRef program;
        infiniStatus_t status = createProgram(build, images[i], i, &program);
        if (status != INFINI_STATUS_SUCCESS) {
            return status;
        }
        const std::string options = images[i].format == INFINIRT_MODULE_FORMAT_OPENCL_C
                                        ? sourceOptions(build, images[i].options)
                                        : std::string(images[i].options ? images[i].options : "");
        const cl_int err = nativeApi().clCompileProgram(program.get(), 1, &build.dev.id, options.c_str(), 0, nullptr, nullptr,
                                                  nullptr, nullptr);
        const std::string log = buildLog(program.get(), build.dev.id);
        build.addLog("image " + std::to_string(i) + " (compile)", log);
        if (err != CL_SUCCESS) {
            return buildFailure(build, "clCompileProgram", err,
                                "image " + std::to_string(i) + " (" + common::moduleFormatName(images[i].format) + ")", options, log);
        }
        objects.push_back(program.get());
        compiled.push_back(std::move(program));
    }
    cl_int err = CL_SUCCESS;
    ProgramRef linked(nativeApi().clLinkProgram(build.dev.context, 1, &build.dev.id, nullptr,
                                          static_cast<cl_uint>(objects.size()), objects.data(), nullptr, nullptr,
                                          &err));
    const std::string log = buildLog(linked.get(), build.dev.id);
    build.addLog("link", log);
    if (err != CL_SUCCESS || !linked.get()) {
        return buildFailure(build, "clLinkProgram", err == CL_SUCCESS ? CL_LINK_PROGRAM_FAILURE : err,
                            std::to_string(count) + " images", "", log);
    }
    *out = std::move(linked);
    return INFINI_STATUS_SUCCESS;
}

// CL_PROGRAM_KERNEL_NAMES as "a, b, c", cut at kDetailNameChars.
std::string kernelNames(cl_program program) {
    size_t size = 0;
    if (nativeApi().clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size) != CL_SUCCESS || size == 0) {
        return "";
    }
    std::string names(size, '\0');
    if (nativeApi().clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, size, names.data(), nullptr) != CL_SUCCESS) {
        return "";
    }
    names.resize(std::strlen(names.c_str()));
    std::string out;
    for (char c : names) {
        out += c == ';' ? std::string(", ") : std::string(1, c);
    }
    if (out.size() > kDetailNameChars) {
        out = out.substr(0, kDetailNameChars) + ", ...";
    }
    return out;
}

template <typename T>
infiniStatus_t workGroupInfo(const Kernel &k, cl_device_id id, cl_kernel_work_group_info what, const char *name,
                             T *value) {
    const cl_int err = nativeApi().clGetKernelWorkGroupInfo(k.kernel, id, what, sizeof(T), value, nullptr);
    if (err != CL_SUCCESS) {
        return nativeFailure("clGetKernelWorkGroupInfo", err, "(%s) of kernel \"%s\" on opencl:%d", name,
                             k.name.c_str(), k.device);
    }
    return INFINI_STATUS_SUCCESS;
}

template <typename T> bool argInfo(const Kernel &k, cl_uint index, cl_kernel_arg_info what, T *value) {
    return nativeApi().clGetKernelArgInfo(k.kernel, index, what, sizeof(T), value, nullptr) == CL_SUCCESS;
}

// What each parameter takes (Kernel::params); none where any answer is missing (the
// implementation keeps no argument information for the program, e.g. SPIR-V).
void describeParams(Kernel &k) {
    std::vector<Param> params(k.num_args);
    for (cl_uint i = 0; i < k.num_args; ++i) {
        cl_kernel_arg_address_qualifier address = 0;
        cl_kernel_arg_access_qualifier access = 0;
        cl_kernel_arg_type_qualifier type_qualifier = 0;
        char type[32] = {};
        if (!argInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, &address) ||
            !argInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, &access) ||
            !argInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, &type_qualifier)) {
            return;
        }
        // A longer name is no sampler_t or queue_t (a failure to fit leaves `type` empty).
        nativeApi().clGetKernelArgInfo(k.kernel, i, CL_KERNEL_ARG_TYPE_NAME, sizeof(type) - 1, type, nullptr);
        // Images (and pipes) have an access qualifier; buffers and values have none.
        if (access != CL_KERNEL_ARG_ACCESS_NONE || (type_qualifier & CL_KERNEL_ARG_TYPE_PIPE) ||
            std::strcmp(type, "sampler_t") == 0 || std::strcmp(type, "queue_t") == 0) {
            params[i] = Param::Object;
        } else if (address == CL_KERNEL_ARG_ADDRESS_GLOBAL || address == CL_KERNEL_ARG_ADDRESS_CONSTANT) {
            params[i] = Param::Pointer;
        } else if (address == CL_KERNEL_ARG_ADDRESS_LOCAL) {
            params[i] = Param::Local;
        } else {
            params[i] = Param::Value;
        }
    }
    k.params = std::move(params);
}

// Queries what the kernel's attributes and launches need.
infiniStatus_t describeKernel(Kernel &k, Device &dev) {
    cl_int err = nativeApi().clGetKernelInfo(k.kernel, CL_KERNEL_NUM_ARGS, sizeof(k.num_args), &k.num_args, nullptr);
    if (err != CL_SUCCESS) {
        return nativeFailure("clGetKernelInfo", err, "(CL_KERNEL_NUM_ARGS) of kernel \"%s\" on opencl:%d",
                             k.name.c_str(), k.device);
    }
    infiniStatus_t status =
        workGroupInfo(k, dev.id, CL_KERNEL_WORK_GROUP_SIZE, "CL_KERNEL_WORK_GROUP_SIZE", &k.work_group_size);
    if (status == INFINI_STATUS_SUCCESS) {
        status = workGroupInfo(k, dev.id, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                               "CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE", &k.preferred_multiple);
    }
    if (status == INFINI_STATUS_SUCCESS) {
        status = workGroupInfo(k, dev.id, CL_KERNEL_LOCAL_MEM_SIZE, "CL_KERNEL_LOCAL_MEM_SIZE", &k.static_local);
    }
    if (status == INFINI_STATUS_SUCCESS) {
        status = workGroupInfo(k, dev.id, CL_KERNEL_PRIVATE_MEM_SIZE, "CL_KERNEL_PRIVATE_MEM_SIZE", &k.private_bytes);
    }
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    const CodeTraits &code = codeTraits(dev);
    k.local_capacity = code.local_mem > k.static_local ? code.local_mem - k.static_local : 0;
    k.max_dynamic_local.store(static_cast<int64_t>(k.local_capacity), std::memory_order_relaxed);
    for (int i = 0; i < 3; ++i) {
        k.max_item_sizes[i] = code.max_item_sizes[i];
    }
    k.flush = code.flush_launches;
    if (k.module->args_described) {
        describeParams(k);
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace

const CodeTraits &codeTraits(Device &dev) {
    std::call_once(dev.code_once, fillCodeTraits, std::ref(dev));
    return dev.code;
}

// OPENCL_C (clCreateProgramWithSource + clBuildProgram; count > 1: each source or SPIR-V image
// clCompileProgram'd with its options, then clLinkProgram'd), SPIRV (clCreateProgramWithIL where
// the device reports IL versions; NOT_IMPLEMENTED naming them otherwise) and DEVICE_BINARY
// (clCreateProgramWithBinary + clBuildProgram, one image only). OpenCL C builds whose options
// name no -cl-std get CodeTraits::std_option, and all get -cl-kernel-arg-info (without it no
// implementation need say what a parameter takes; see Kernel::params). Where a build with
// -cl-kernel-arg-info fails, the module is built once more without it (NVIDIA's compiler fails on
// a kernel without parameters with it): the module then loads, its log says so, a warning is
// logged, and launches of its kernels do not check argument kinds. A failed build, compile or
// link: BUILD_FAILED with the first lines of CL_PROGRAM_BUILD_LOG; the whole log goes to `log`
// either way.
infiniStatus_t moduleLoad(int device, const infinirtModuleImage_t *images, size_t count, char *log, size_t log_size,
                          void **out) {
    Device &dev = infinirt::opencl::device(device);
    codeTraits(dev);
    for (size_t i = 0; i < count; ++i) {
        const infinirtModuleFormat_t format = images[i].format;
        if (format != INFINIRT_MODULE_FORMAT_OPENCL_C && format != INFINIRT_MODULE_FORMAT_SPIRV &&
            format != INFINIRT_MODULE_FORMAT_DEVICE_BINARY) {
            return common::fail(INFINI_STATUS_BAD_PARAM,
                                "image %zu is %s; the opencl backend loads OPENCL_C, SPIRV and DEVICE_BINARY images", i,
                                common::moduleFormatName(format));
        }
        if (format == INFINIRT_MODULE_FORMAT_SPIRV) {
            const common::SpirvFlavour flavour = common::spirvFlavour(images[i].data, images[i].size);
            if (flavour == common::SpirvFlavour::Vulkan) {
                return common::fail(INFINI_STATUS_BAD_PARAM,
                                    "image %zu is %s; the opencl backend loads OpenCL SPIR-V (the Kernel capability): "
                                    "load it on a vulkan device",
                                    i, common::spirvFlavourName(flavour));
            }
            if (dev.code.il_versions.empty()) {
                return noIl(dev, i);
            }
        }
    }
    Build build{dev, ""};
    ProgramRef program;
    infiniStatus_t status =
        count == 1 ? buildOne(build, images[0], &program) : compileAndLink(build, images, count, &program);
    bool args_described = true;
    if (status == INFINI_STATUS_BUILD_FAILED && build.added_arg_info) {
        // Some compilers fail on a valid program only because of -cl-kernel-arg-info (NVIDIA's
        // writes invalid PTX for a kernel without parameters with it). Build once more without
        // it: if that succeeds, the module's kernels have no argument information and their
        // launches go unchecked; if it fails too, its failure is the program's own.
        Build again{dev, ""};
        again.arg_info = false;
        ProgramRef retried;
        const infiniStatus_t second =
            count == 1 ? buildOne(again, images[0], &retried) : compileAndLink(again, images, count, &retried);
        if (second == INFINI_STATUS_SUCCESS) {
            common::logMessage(INFINIRT_LOG_WARN,
                               "opencl:%d (\"%s\"): the module failed to build with -cl-kernel-arg-info and was "
                               "built without it; launches of its kernels cannot check argument kinds",
                               dev.index, dev.name.c_str());
            again.log = "built without -cl-kernel-arg-info (launches do not check argument kinds); the build "
                        "with it failed:\n" +
                        build.log + (again.log.empty() ? std::string() : "\n" + again.log);
            args_described = false;
            program = std::move(retried);
        }
        status = second;
        build.log = std::move(again.log);
    }
    common::copyString(log, log_size, build.log);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    Module *module = new (std::nothrow) Module;
    if (!module) {
        return common::fail(INFINI_STATUS_OUT_OF_MEMORY, "out of host memory loading a module on opencl:%d", device);
    }
    module->device = device;
    module->args_described = args_described;
    module->program = program.release();
    *out = module;
    return INFINI_STATUS_SUCCESS;
}

// Releases the kernels and the program: commands already enqueued keep them alive (OpenCL
// reference counting), so nothing waits.
infiniStatus_t moduleUnload(int, void *handle) {
    Module *module = static_cast<Module *>(handle);
    for (auto &entry : module->kernels) {
        nativeApi().clReleaseKernel(entry.second->kernel);
    }
    nativeApi().clReleaseProgram(module->program);
    delete module;
    return INFINI_STATUS_SUCCESS;
}

// clCreateKernel, once per name; an unknown name is SYMBOL_NOT_FOUND listing
// CL_PROGRAM_KERNEL_NAMES.
infiniStatus_t moduleGetKernel(int device, void *handle, const char *name, void **out) {
    Module *module = static_cast<Module *>(handle);
    std::lock_guard<std::mutex> lock(module->mutex);
    auto found = module->kernels.find(name);
    if (found != module->kernels.end()) {
        *out = found->second.get();
        return INFINI_STATUS_SUCCESS;
    }
    cl_int err = CL_SUCCESS;
    cl_kernel created = nativeApi().clCreateKernel(module->program, name, &err);
    if (!created) {
        if (err == CL_INVALID_KERNEL_NAME) {
            const std::string names = kernelNames(module->program);
            return common::fail(INFINI_STATUS_SYMBOL_NOT_FOUND,
                                "no kernel \"%s\" in the module on opencl:%d (it has: %s)", name, device,
                                names.empty() ? "no kernels" : names.c_str());
        }
        return nativeFailure("clCreateKernel", err, "for kernel \"%s\" on opencl:%d", name, device);
    }
    auto kernel = std::make_unique<Kernel>();
    kernel->module = module;
    kernel->device = device;
    kernel->kernel = created;
    kernel->name = name;
    const infiniStatus_t status = describeKernel(*kernel, infinirt::opencl::device(device));
    if (status != INFINI_STATUS_SUCCESS) {
        nativeApi().clReleaseKernel(created);
        return status;
    }
    Kernel *k = kernel.get();
    try {
        module->kernels.emplace(k->name, std::move(kernel));
    } catch (...) {
        nativeApi().clReleaseKernel(created);
        throw;
    }
    *out = k;
    return INFINI_STATUS_SUCCESS;
}

// Through clGetDeviceGlobalVariablePointerINTEL where the device has
// cl_intel_global_variable_pointers; NOT_IMPLEMENTED elsewhere (OpenCL gives program-scope
// variables no host-visible address: pass a buffer argument instead).
infiniStatus_t moduleGetGlobal(int device, void *handle, const char *name, void **ptr, size_t *size) {
    Module *module = static_cast<Module *>(handle);
    Device &dev = infinirt::opencl::device(device);
    const CodeTraits &code = codeTraits(dev);
    if (!code.global_variable_pointer) {
        return common::fail(INFINI_STATUS_NOT_IMPLEMENTED,
                            "OpenCL gives program-scope variables (\"%s\") no host-visible address on opencl:%d "
                            "(\"%s\" lacks cl_intel_global_variable_pointers): pass a buffer argument to the "
                            "kernels instead",
                            name, device, dev.name.c_str());
    }
    size_t bytes = 0;
    void *address = nullptr;
    const cl_int err = code.global_variable_pointer(dev.id, module->program, name, &bytes, &address);
    if (err == CL_INVALID_ARG_VALUE) {
        return common::fail(INFINI_STATUS_SYMBOL_NOT_FOUND,
                            "no program-scope variable \"%s\" in the module on opencl:%d "
                            "(clGetDeviceGlobalVariablePointerINTEL: CL_INVALID_ARG_VALUE)",
                            name, device);
    }
    if (err != CL_SUCCESS) {
        return nativeFailure("clGetDeviceGlobalVariablePointerINTEL", err, "for \"%s\" on opencl:%d", name, device);
    }
    *ptr = address;
    if (size) {
        *size = bytes;
    }
    return INFINI_STATUS_SUCCESS;
}

// From clGetKernelInfo/clGetKernelWorkGroupInfo: MAX_THREADS_PER_BLOCK = CL_KERNEL_WORK_GROUP_SIZE,
// STATIC_SHARED_BYTES = CL_KERNEL_LOCAL_MEM_SIZE, PRIVATE_BYTES_PER_THREAD =
// CL_KERNEL_PRIVATE_MEM_SIZE, NUM_REGISTERS -1, PREFERRED_BLOCK_MULTIPLE =
// CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, MAX_DYNAMIC_SHARED_BYTES (local memory for LOCAL
// arguments) = the device's local memory less the static, NUM_PARAMS = CL_KERNEL_NUM_ARGS.
infiniStatus_t kernelGetAttribute(int, void *handle, infinirtKernelAttribute_t attr, int64_t *value) {
    const Kernel &k = *static_cast<const Kernel *>(handle);
    switch (attr) {
    case INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK:
        *value = static_cast<int64_t>(k.work_group_size);
        return INFINI_STATUS_SUCCESS;
    case INFINIRT_KERNEL_ATTR_STATIC_SHARED_BYTES:
        *value = static_cast<int64_t>(k.static_local);
        return INFINI_STATUS_SUCCESS;
    case INFINIRT_KERNEL_ATTR_PRIVATE_BYTES_PER_THREAD:
        *value = static_cast<int64_t>(k.private_bytes);
        return INFINI_STATUS_SUCCESS;
    case INFINIRT_KERNEL_ATTR_NUM_REGISTERS:
        *value = -1; // OpenCL does not say
        return INFINI_STATUS_SUCCESS;
    case INFINIRT_KERNEL_ATTR_PREFERRED_BLOCK_MULTIPLE:
        *value = static_cast<int64_t>(k.preferred_multiple);
        return INFINI_STATUS_SUCCESS;
    case INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES:
        *value = k.max_dynamic_local.load(std::memory_order_relaxed);
        return INFINI_STATUS_SUCCESS;
    case INFINIRT_KERNEL_ATTR_NUM_PARAMS: *value = static_cast<int64_t>(k.num_args); return INFINI_STATUS_SUCCESS;
    }
    return common::fail(INFINI_STATUS_BAD_PARAM, "unknown kernel attribute %d", static_cast<int>(attr));
}

// MAX_DYNAMIC_SHARED_BYTES, at most the device's local memory less the kernel's static local
// memory (BAD_PARAM with the figures above it).
infiniStatus_t kernelSetAttribute(int device, void *handle, infinirtKernelAttribute_t attr, int64_t value) {
    Kernel &k = *static_cast<Kernel *>(handle);
    if (attr != INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "kernel attribute %d is not settable on opencl",
                            static_cast<int>(attr));
    }
    if (value < 0) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "MAX_DYNAMIC_SHARED_BYTES of %lld for kernel \"%s\" is negative",
                            static_cast<long long>(value), k.name.c_str());
    }
    if (static_cast<uint64_t>(value) > k.local_capacity) {
        return common::fail(INFINI_STATUS_BAD_PARAM,
                            "MAX_DYNAMIC_SHARED_BYTES of %lld for kernel \"%s\" on opencl:%d is over what the device "
                            "leaves it: %s of local memory less %s the kernel declares = %llu bytes",
                            static_cast<long long>(value), k.name.c_str(), device,
                            common::formatBytes(codeTraits(infinirt::opencl::device(device)).local_mem).c_str(),
                            common::formatBytes(k.static_local).c_str(),
                            static_cast<unsigned long long>(k.local_capacity));
    }
    k.max_dynamic_local.store(value, std::memory_order_relaxed);
    return INFINI_STATUS_SUCCESS;
}

// A device binary for this device (its architecture property or its name) first, then SPIR-V,
// then OpenCL C (for any device or this one); nothing else loads.
infiniStatus_t moduleRankImage(int device, infinirtModuleFormat_t format, const char *arch, int *rank, char *why,
                               size_t why_size) {
    if (format != INFINIRT_MODULE_FORMAT_DEVICE_BINARY && format != INFINIRT_MODULE_FORMAT_SPIRV &&
        format != INFINIRT_MODULE_FORMAT_OPENCL_C) {
        return common::imageUnfit(rank, why, why_size, "the opencl backend loads OPENCL_C, SPIRV and DEVICE_BINARY, not %s",
                                  common::moduleFormatName(format));
    }
    infinirtDeviceProperties_t p;
    const infiniStatus_t st = common::deviceProperties(getDeviceProperties, device, p);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    const bool mine = (p.architecture[0] != '\0' && std::strcmp(arch, p.architecture) == 0) || std::strcmp(arch, p.name) == 0;
    if (format == INFINIRT_MODULE_FORMAT_DEVICE_BINARY) {
        if (mine) {
            return common::imageFits(rank, 3);
        }
        return p.architecture[0] == '\0'
                   ? common::imageUnfit(rank, why, why_size, "a device binary for \"%s\"; the device is \"%s\"", arch, p.name)
                   : common::imageUnfit(rank, why, why_size, "a device binary for \"%s\"; the device is \"%s\" (%s)", arch,
                                        p.name, p.architecture);
    }
    if (!mine && !common::imageForAnyDevice(arch)) {
        return common::imageUnfit(rank, why, why_size, "an image for \"%s\"; the device is \"%s\"", arch, p.name);
    }
    return common::imageFits(rank, format == INFINIRT_MODULE_FORMAT_SPIRV ? 2 : 1);
}

} // namespace infinirt::opencl
