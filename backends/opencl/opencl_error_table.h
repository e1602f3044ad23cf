// opencl_error_table.h - the one table from OpenCL error codes to infinirt status codes.
#pragma once

#include <CL/cl.h>

#include "infinicore.h"

namespace infinirt::opencl {

// "CL_OUT_OF_RESOURCES" etc.; "CL_UNKNOWN_ERROR" for a code not in the table. Static storage.
const char *errorName(cl_int code);

// The status an OpenCL code stands for; DRIVER_ERROR for codes no other status describes and
// for codes not in the table. CL_SUCCESS gives SUCCESS.
infiniStatus_t toStatus(cl_int code);

} // namespace infinirt::opencl
