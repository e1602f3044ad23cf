// opencl_error.h - reporting failures to the loader: the thread's error detail and the log.
#pragma once

#include <CL/cl.h>

#include "infinirt_plugin.h"

#include <string>

namespace infinirt::opencl {

// Remembers the loader's services; called once by the plugin entry before anything else.
void setHost(const infinirtPluginHost_t *host);

// Sets the calling thread's error detail to `message` and returns `status`.
infiniStatus_t fail(infiniStatus_t status, const std::string &message);

// For a failed OpenCL call: the detail is "<call> failed: <CL_NAME> (<code>) <what>", the status
// comes from the error table.
infiniStatus_t clFail(const char *call, cl_int code, const std::string &what);

void logMessage(infinirtLogLevel_t level, const std::string &message);

// "opencl:3", the way messages name a device.
std::string deviceLabel(int device);

// "1.5 GiB", "512 B": sizes as messages print them.
std::string formatBytes(size_t bytes);

} // namespace infinirt::opencl
