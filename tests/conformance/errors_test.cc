// Names and descriptions of every status code.
#include "out_of_range_enums.h"
#include "status_assertions.h"

#include <cstring>

namespace infinirt_test {
namespace {

struct Code {
    infiniStatus_t status;
    const char *name;
};

const Code kCodes[] = {
    {INFINI_STATUS_SUCCESS, "INFINI_STATUS_SUCCESS"},
    {INFINI_STATUS_INTERNAL_ERROR, "INFINI_STATUS_INTERNAL_ERROR"},
    {INFINI_STATUS_NOT_IMPLEMENTED, "INFINI_STATUS_NOT_IMPLEMENTED"},
    {INFINI_STATUS_BAD_PARAM, "INFINI_STATUS_BAD_PARAM"},
    {INFINI_STATUS_NULL_POINTER, "INFINI_STATUS_NULL_POINTER"},
    {INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, "INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED"},
    {INFINI_STATUS_DEVICE_NOT_FOUND, "INFINI_STATUS_DEVICE_NOT_FOUND"},
    {INFINI_STATUS_DEVICE_NOT_INITIALIZED, "INFINI_STATUS_DEVICE_NOT_INITIALIZED"},
    {INFINI_STATUS_DEVICE_ARCHITECTURE_NOT_SUPPORTED, "INFINI_STATUS_DEVICE_ARCHITECTURE_NOT_SUPPORTED"},
    {INFINI_STATUS_BAD_TENSOR_DTYPE, "INFINI_STATUS_BAD_TENSOR_DTYPE"},
    {INFINI_STATUS_BAD_TENSOR_SHAPE, "INFINI_STATUS_BAD_TENSOR_SHAPE"},
    {INFINI_STATUS_BAD_TENSOR_STRIDES, "INFINI_STATUS_BAD_TENSOR_STRIDES"},
    {INFINI_STATUS_INSUFFICIENT_WORKSPACE, "INFINI_STATUS_INSUFFICIENT_WORKSPACE"},
    {INFINI_STATUS_OUT_OF_MEMORY, "INFINI_STATUS_OUT_OF_MEMORY"},
    {INFINI_STATUS_INVALID_HANDLE, "INFINI_STATUS_INVALID_HANDLE"},
    {INFINI_STATUS_NOT_READY, "INFINI_STATUS_NOT_READY"},
    {INFINI_STATUS_BACKEND_UNAVAILABLE, "INFINI_STATUS_BACKEND_UNAVAILABLE"},
    {INFINI_STATUS_DRIVER_ERROR, "INFINI_STATUS_DRIVER_ERROR"},
    {INFINI_STATUS_BUILD_FAILED, "INFINI_STATUS_BUILD_FAILED"},
    {INFINI_STATUS_SYMBOL_NOT_FOUND, "INFINI_STATUS_SYMBOL_NOT_FOUND"},
};

TEST(ErrorNames, EveryCodeHasItsName) {
    for (const Code &code : kCodes) {
        const char *name = infinirtGetErrorName(code.status);
        ASSERT_NE(name, nullptr) << code.name;
        EXPECT_STREQ(name, code.name);
    }
}

TEST(ErrorNames, EveryCodeHasAOneLineDescription) {
    for (const Code &code : kCodes) {
        const char *text = infinirtGetErrorString(code.status);
        ASSERT_NE(text, nullptr) << code.name;
        EXPECT_GT(std::strlen(text), 0u) << code.name;
        EXPECT_EQ(std::strchr(text, '\n'), nullptr) << code.name;
        EXPECT_STRNE(text, "INFINI_STATUS_UNKNOWN") << code.name;
    }
}

TEST(ErrorNames, UnknownCodes) {
    for (int unknown : {-1, 9, 14, 99, 107, 1000, 0x7fffffff}) {
        EXPECT_STREQ(oorGetErrorName(unknown), "INFINI_STATUS_UNKNOWN") << unknown;
        const char *text = oorGetErrorString(unknown);
        ASSERT_NE(text, nullptr) << unknown;
        EXPECT_GT(std::strlen(text), 0u) << unknown;
    }
}

TEST(ErrorNames, StringsAreStatic) {
    const char *first = infinirtGetErrorName(INFINI_STATUS_BAD_PARAM);
    infinirtGetErrorName(INFINI_STATUS_NOT_READY);
    infinirtGetErrorString(INFINI_STATUS_OUT_OF_MEMORY);
    EXPECT_STREQ(first, "INFINI_STATUS_BAD_PARAM");
}

} // namespace
} // namespace infinirt_test
