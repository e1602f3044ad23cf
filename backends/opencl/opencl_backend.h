// opencl_backend.h - private declarations shared by the files of the opencl backend: the error
// table's helpers and the plugin entries. Nothing here crosses the plugin boundary: the loader sees
// only the table built in opencl_plugin.cpp. The backend's objects have a header each:
// opencl_device.h, opencl_stream.h, opencl_event.h, opencl_module.h.
//
// Devices, contexts and default streams are created once and never released: the plugin may be
// called until the process exits, and driver objects must not be released from static destructors.
#pragma once

#include <CL/cl.h>

#include "infinirt_plugin.h"

#include "common/plugin_table.hpp"
#include "common/host_services.hpp"

namespace infinirt::opencl {

// ---- errors (opencl_errors.cpp) --------------------------------------------------------------

// "CL_OUT_OF_RESOURCES" etc.; "CL_UNKNOWN_ERROR" for a code not in the table. Static storage.
const char *nativeErrorName(cl_int code) noexcept;

// The status an OpenCL code stands for; DRIVER_ERROR for codes no other status describes and
// for codes not in the table. CL_SUCCESS gives SUCCESS.
infiniStatus_t nativeStatus(cl_int code) noexcept;

// For a failed OpenCL call: sets the thread's error detail (common::fail) to
// "<call> failed: <CL_NAME> (<code>) <what>" and returns the status the error table gives `code`.
infiniStatus_t nativeFailure(const char *call, cl_int code, const char *what_format, ...) noexcept
    __attribute__((format(printf, 3, 4)));

// ---- the plugin entries ---------------------------------------------------------------------
// Every entry of the list (include/infinirt_plugin.h), by its impl name; opencl_plugin.cpp
// installs those defined and names the ones left NULL. What each does on OpenCL is said at its
// definition: opencl_device.cpp, opencl_stream.cpp, opencl_event.cpp, opencl_memory.cpp (device
// memory is coarse-grained SVM, so pointers support arithmetic), opencl_module.cpp,
// opencl_launch.cpp and opencl_peer.cpp (no device can access another's memory: one context per
// device, and SVM is per context; the loader stages copies and waits on the host).
INFINIRT_COMMON_DECLARE_ENTRIES();

} // namespace infinirt::opencl

// The hot entries' guards live beside their definitions (common/entry_guard.hpp).
INFINIRT_COMMON_HOT_ENTRIES(infinirt::opencl);
