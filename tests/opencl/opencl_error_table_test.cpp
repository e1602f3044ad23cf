// The cl_int -> infiniStatus_t table: names and statuses of the codes callers meet most.
#include "opencl_backend.h"

#include <CL/cl_ext.h>
#include <gtest/gtest.h>

#include <string>

namespace {

using infinirt::opencl::nativeErrorName;
using infinirt::opencl::nativeStatus;

TEST(OpenclErrorTable, NamesCarryTheOpenclSpelling) {
    EXPECT_STREQ(nativeErrorName(CL_SUCCESS), "CL_SUCCESS");
    EXPECT_STREQ(nativeErrorName(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
    EXPECT_STREQ(nativeErrorName(CL_INVALID_COMMAND_QUEUE), "CL_INVALID_COMMAND_QUEUE");
    EXPECT_STREQ(nativeErrorName(CL_PLATFORM_NOT_FOUND_KHR), "CL_PLATFORM_NOT_FOUND_KHR");
    EXPECT_STREQ(nativeErrorName(-12345), "CL_UNKNOWN_ERROR");
}

TEST(OpenclErrorTable, StatusesFollowTheMeaning) {
    EXPECT_EQ(nativeStatus(CL_SUCCESS), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(nativeStatus(CL_OUT_OF_RESOURCES), INFINI_STATUS_OUT_OF_MEMORY);
    EXPECT_EQ(nativeStatus(CL_OUT_OF_HOST_MEMORY), INFINI_STATUS_OUT_OF_MEMORY);
    EXPECT_EQ(nativeStatus(CL_MEM_OBJECT_ALLOCATION_FAILURE), INFINI_STATUS_OUT_OF_MEMORY);
    EXPECT_EQ(nativeStatus(CL_INVALID_VALUE), INFINI_STATUS_BAD_PARAM);
    EXPECT_EQ(nativeStatus(CL_INVALID_EVENT), INFINI_STATUS_INVALID_HANDLE);
    EXPECT_EQ(nativeStatus(CL_INVALID_COMMAND_QUEUE), INFINI_STATUS_INVALID_HANDLE);
    EXPECT_EQ(nativeStatus(CL_INVALID_DEVICE), INFINI_STATUS_DEVICE_NOT_FOUND);
    EXPECT_EQ(nativeStatus(CL_INVALID_OPERATION), INFINI_STATUS_NOT_IMPLEMENTED);
    EXPECT_EQ(nativeStatus(-12345), INFINI_STATUS_DRIVER_ERROR);
}

TEST(OpenclErrorTable, EveryStandardCodeHasAName) {
    // Codes -1..-19 and -30..-72 are the ones the 3.0 headers define.
    for (cl_int code = -1; code >= -72; --code) {
        if (code < -19 && code > -30) {
            continue;
        }
        EXPECT_NE(std::string(nativeErrorName(code)), "CL_UNKNOWN_ERROR") << "code " << code;
    }
}

} // namespace
