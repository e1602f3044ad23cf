// What each backend declares it supports, as IREE's CTS enrolment does: per backend, the features
// it declares and, for every feature it does not, the written reason (capabilities.cc).
//
// A declared feature is asserted strictly on that backend. An undeclared one must answer
// INFINI_STATUS_NOT_IMPLEMENTED with a message at each of its entries (checked before every skip,
// see SkipUnlessDeclared in device_test.h, and by UndeclaredFeatures.EveryEntryAnswersNotImplemented);
// the tests that need it are then skipped with the reason. So a backend passes neither by
// failing quietly nor by declaring less than it does.
//
// A backend without an entry in the table (a vendor's) declares its features through
// INFINIRT_CONFORMANCE_FEATURES=name,name (the names of FeatureName); when that variable is unset
// it is held to every feature.
#ifndef INFINIRT_TESTS_CAPABILITIES_H
#define INFINIRT_TESTS_CAPABILITIES_H

#include <string>
#include <vector>

namespace infinirt_test {

enum class Feature {
    kDeviceProperties,   // infinirtGetDeviceProperties fills at least the name
    kMemory,             // Malloc/Free, MallocHost/FreeHost, Memcpy, Memset, GetMemInfo
    kStreams,            // StreamCreate/Destroy/Synchronize/WaitEvent, the async copies and fills, DeviceSynchronize
    kEvents,             // EventCreate/Destroy/Record/Query/Synchronize
    kStreamQuery,        // infinirtStreamQuery
    kEventTiming,        // infinirtEventElapsedTime
    kStreamOrderedAlloc, // MallocAsync/FreeAsync (the loader falls back to Malloc/Free in stream order)
    kStreamCapture,      // BeginCapture/EndCapture/Instantiate/Launch (the loader's generic capture)
    kNativeHandles,      // StreamGetNativeHandle, EventGetNativeHandle, DeviceGetNativeContext
    kCrossDeviceHandles, // handles of one device used while another device is current
    kResourceSnapshot,   // infinirtGetDeviceResourceSnapshot memory fields (the loader falls back to GetMemInfo)
    kKernels,            // ModuleLoad/Unload/GetKernel, KernelGetAttribute/SetAttribute, LaunchKernel (kernels/)
    kModuleGlobals,      // infinirtModuleGetGlobal: a host-visible device address for a module variable
};

// Every feature, in the order above (the basics of a feature come before it).
const std::vector<Feature> &AllFeatures();

// "device_properties", "memory", ...: the spelling of INFINIRT_CONFORMANCE_FEATURES.
const char *FeatureName(Feature feature);

// The reason `backend` gives for not declaring `feature`, or nullptr when it declares it.
const char *UndeclaredReason(const std::string &backend, Feature feature);

// One backend's enrolment: the features it declares and a reason for every other one.
struct Undeclared {
    Feature feature;
    const char *reason;
};
struct Enrolment {
    const char *backend;
    std::vector<Feature> declared;
    std::vector<Undeclared> undeclared;
};
const std::vector<Enrolment> &Enrolments();

// What is wrong with INFINIRT_CONFORMANCE_FEATURES (names that are no feature); "" when nothing
// is, or when it is unset.
std::string FeatureVariableProblems();

} // namespace infinirt_test

#endif // INFINIRT_TESTS_CAPABILITIES_H
