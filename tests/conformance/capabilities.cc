// The enrolment table of capabilities.h: what each backend of this tree declares, with a reason
// for every feature it does not; and INFINIRT_CONFORMANCE_FEATURES for a backend without an entry.
#include "capabilities.h"

#include <cstdlib>
#include <sstream>

namespace infinirt_test {

namespace {

using F = Feature;

// One enrolment per backend of this tree, sorted by name. What each declares follows its plugin
// table (backends/<name>/<name>_plugin.cpp, backends/gpu_common/gpu_plugin.cpp) together with the
// loader's fallbacks (infinirt/): a NULL graph entry means the loader's generic capture, a NULL
// malloc_async/free_async means Malloc/Free in stream order, a NULL get_resource_snapshot means the
// memory fields from get_mem_info. Every undeclared feature needs a reason a vendor engineer would
// accept: why the native API (or the template) cannot give the semantics, never "the test failed".
const std::vector<Enrolment> &Table() {
    static const std::vector<Enrolment> kTable = {
        {"cpu",
         {F::kDeviceProperties, F::kMemory, F::kStreams, F::kEvents, F::kStreamQuery, F::kEventTiming,
          F::kStreamOrderedAlloc, F::kStreamCapture, F::kCrossDeviceHandles, F::kResourceSnapshot, F::kKernels,
          F::kModuleGlobals},
         {
             {F::kNativeHandles,
              "the cpu backend runs its streams on host threads without any driver, so there is no native stream, "
              "event or context object to hand out (stream_get_native, event_get_native and "
              "device_get_native_context are left NULL; the loader answers NOT_IMPLEMENTED)"},
         }},
        {"cuda",
         {F::kDeviceProperties, F::kMemory, F::kStreams, F::kEvents, F::kStreamQuery, F::kEventTiming,
          F::kStreamOrderedAlloc, F::kStreamCapture, F::kNativeHandles, F::kCrossDeviceHandles,
          F::kResourceSnapshot, F::kKernels, F::kModuleGlobals},
         {}},
        {"hip",
         {F::kDeviceProperties, F::kMemory, F::kStreams, F::kEvents, F::kStreamQuery, F::kEventTiming,
          F::kStreamOrderedAlloc, F::kStreamCapture, F::kNativeHandles, F::kCrossDeviceHandles,
          F::kResourceSnapshot, F::kKernels, F::kModuleGlobals},
         {}},
        {"opencl",
         {F::kDeviceProperties, F::kMemory, F::kStreams, F::kEvents, F::kStreamQuery, F::kEventTiming,
          F::kStreamOrderedAlloc, F::kStreamCapture, F::kNativeHandles, F::kCrossDeviceHandles,
          F::kResourceSnapshot, F::kKernels},
         {
             {F::kModuleGlobals,
              "OpenCL has no host-visible address for program-scope variables (only through "
              "cl_intel_global_variable_pointers), so module_get_global is left NULL and the loader answers "
              "NOT_IMPLEMENTED"},
         }},
        {"vulkan",
         {F::kDeviceProperties, F::kMemory, F::kStreams, F::kEvents, F::kStreamQuery, F::kEventTiming,
          F::kStreamOrderedAlloc, F::kStreamCapture, F::kCrossDeviceHandles, F::kResourceSnapshot, F::kKernels},
         {
             {F::kNativeHandles,
              "a vulkan stream is a timeline semaphore on a VkQueue that other streams share, and an event a value "
              "of such a semaphore: no single Vulkan object stands for either, so stream_get_native, "
              "event_get_native and device_get_native_context are left NULL (the loader answers NOT_IMPLEMENTED)"},
             {F::kModuleGlobals,
              "Vulkan SPIR-V has no module-scope variables with a device address the host could be given: a "
              "shader's Private and Workgroup variables have no address outside it, so module_get_global answers "
              "NOT_IMPLEMENTED"},
         }},
        // The template a vendor copies (backends/skeleton): with INFINIRT_SKELETON_DEVICE_COUNT it
        // reports template devices and their properties; every other entry is the vendor's to fill.
        {"skeleton",
         {F::kDeviceProperties},
         {
             {F::kMemory,
              "the skeleton is the template a vendor copies: malloc_device, free_device, malloc_host, free_host, "
              "memcpy_sync, memset_sync and get_mem_info answer NOT_IMPLEMENTED until the vendor fills them with "
              "its memory API"},
             {F::kStreams,
              "the skeleton is the template a vendor copies: stream_create, stream_destroy, stream_synchronize, "
              "stream_wait_event, device_synchronize, memcpy_async and memset_async answer NOT_IMPLEMENTED until "
              "the vendor fills them with its queue API"},
             {F::kEvents,
              "the skeleton is the template a vendor copies: event_create, event_destroy, event_record, "
              "event_query and event_synchronize answer NOT_IMPLEMENTED until the vendor fills them with its "
              "event API"},
             {F::kStreamQuery,
              "the skeleton is the template a vendor copies: stream_query answers NOT_IMPLEMENTED until the vendor "
              "fills it"},
             {F::kEventTiming,
              "the skeleton is the template a vendor copies: event_elapsed_time answers NOT_IMPLEMENTED until the "
              "vendor fills it (and it has no events to time)"},
             {F::kStreamOrderedAlloc,
              "the skeleton leaves malloc_async NULL, and the loader's fallback allocates with malloc_device, "
              "which answers NOT_IMPLEMENTED"},
             {F::kStreamCapture,
              "the skeleton leaves the graph entries NULL, and the loader's generic capture needs streams, which "
              "the skeleton does not create"},
             {F::kNativeHandles,
              "the skeleton leaves stream_get_native, event_get_native and device_get_native_context NULL: the "
              "template has no vendor objects (the loader answers NOT_IMPLEMENTED)"},
             {F::kCrossDeviceHandles,
              "the skeleton creates no streams, events or memory that another device could use"},
             {F::kResourceSnapshot,
              "the skeleton leaves get_resource_snapshot NULL, and the loader's fallback calls get_mem_info, which "
              "answers NOT_IMPLEMENTED"},
             {F::kKernels,
              "the skeleton is the template a vendor copies: module_load, module_unload, module_get_kernel, "
              "kernel_get_attribute, kernel_set_attribute and launch_kernel answer NOT_IMPLEMENTED until the "
              "vendor fills them with its module and launch API"},
             {F::kModuleGlobals,
              "the skeleton is the template a vendor copies: module_get_global answers NOT_IMPLEMENTED until the "
              "vendor fills it, and without module_load there is no module to look a variable up in"},
         }},
    };
    return kTable;
}

const Enrolment *Find(const std::string &backend) {
    for (const Enrolment &e : Table()) {
        if (backend == e.backend) {
            return &e;
        }
    }
    return nullptr;
}

// INFINIRT_CONFORMANCE_FEATURES, read once: whether it is set, the features it names and the
// names that are no feature.
struct FeatureVariable {
    bool set = false;
    std::string text;
    std::vector<Feature> declared;
    std::vector<std::string> unknown;
};

const FeatureVariable &Variable() {
    static const FeatureVariable kVariable = [] {
        FeatureVariable v;
        const char *text = std::getenv("INFINIRT_CONFORMANCE_FEATURES");
        if (text == nullptr) {
            return v;
        }
        v.set = true;
        v.text = text;
        std::stringstream list(v.text);
        std::string name;
        while (std::getline(list, name, ',')) {
            const size_t first = name.find_first_not_of(" \t");
            const size_t last = name.find_last_not_of(" \t");
            if (first == std::string::npos) {
                continue;
            }
            name = name.substr(first, last - first + 1);
            bool known = false;
            for (Feature f : AllFeatures()) {
                if (name == FeatureName(f)) {
                    v.declared.push_back(f);
                    known = true;
                }
            }
            if (!known) {
                v.unknown.push_back(name);
            }
        }
        return v;
    }();
    return kVariable;
}

// The reason given for every feature a backend without an enrolment leaves out of the variable.
const char *VariableReason() {
    static const std::string kReason = "not listed in INFINIRT_CONFORMANCE_FEATURES=\"" + Variable().text +
                                       "\" (the backend has no enrolment in tests/conformance/capabilities.cc)";
    return kReason.c_str();
}

} // namespace

const std::vector<Feature> &AllFeatures() {
    static const std::vector<Feature> kAll = {
        F::kDeviceProperties, F::kMemory,         F::kStreams,        F::kEvents,
        F::kStreamQuery,      F::kEventTiming,    F::kStreamOrderedAlloc, F::kStreamCapture,
        F::kNativeHandles,    F::kCrossDeviceHandles, F::kResourceSnapshot, F::kKernels,
        F::kModuleGlobals,
    };
    return kAll;
}

const char *FeatureName(Feature feature) {
    switch (feature) {
    case F::kDeviceProperties: return "device_properties";
    case F::kMemory: return "memory";
    case F::kStreams: return "streams";
    case F::kEvents: return "events";
    case F::kStreamQuery: return "stream_query";
    case F::kEventTiming: return "event_timing";
    case F::kStreamOrderedAlloc: return "stream_ordered_alloc";
    case F::kStreamCapture: return "stream_capture";
    case F::kNativeHandles: return "native_handles";
    case F::kCrossDeviceHandles: return "cross_device_handles";
    case F::kResourceSnapshot: return "resource_snapshot";
    case F::kKernels: return "kernels";
    case F::kModuleGlobals: return "module_globals";
    }
    return "unknown_feature";
}

const char *UndeclaredReason(const std::string &backend, Feature feature) {
    if (const Enrolment *e = Find(backend)) {
        for (const Undeclared &u : e->undeclared) {
            if (u.feature == feature) {
                return u.reason;
            }
        }
        return nullptr;
    }
    const FeatureVariable &v = Variable();
    if (!v.set) {
        return nullptr; // a backend that declares nothing is held to everything
    }
    for (Feature f : v.declared) {
        if (f == feature) {
            return nullptr;
        }
    }
    return VariableReason();
}

const std::vector<Enrolment> &Enrolments() { return Table(); }

std::string FeatureVariableProblems() {
    std::string problems;
    for (const std::string &name : Variable().unknown) {
        problems += (problems.empty() ? "" : ", ") + ("\"" + name + "\"");
    }
    if (problems.empty()) {
        return "";
    }
    std::string known;
    for (Feature f : AllFeatures()) {
        known += (known.empty() ? "" : ",") + std::string(FeatureName(f));
    }
    return "INFINIRT_CONFORMANCE_FEATURES names no such feature: " + problems + " (the features: " + known + ")";
}

} // namespace infinirt_test
