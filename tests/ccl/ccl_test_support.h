// ccl_test_support.h - what the infiniccl tests share: the backends to run on (every device type
// with a usable infiniccl plugin and at least two devices), test values that every dtype holds
// exactly, and conversions between them and a dtype's bytes.
#pragma once

#include "infiniccl.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

// The call fails with `status`, and infinirt's last-error message holds `text`.
#define EXPECT_FAILS(expr, status, text)                                                                       \
    do {                                                                                                       \
        EXPECT_EQ((expr), (status));                                                                           \
        EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find(text), std::string::npos)                    \
            << "message: " << infinirtGetLastErrorMessage();                                                   \
    } while (0)

namespace ccltest {

inline size_t elementSize(infiniDtype_t t) {
    switch (t) {
    case INFINI_DTYPE_F16: case INFINI_DTYPE_BF16: return 2;
    case INFINI_DTYPE_F32: case INFINI_DTYPE_I32: return 4;
    case INFINI_DTYPE_I64: return 8;
    default: return 0;
    }
}

inline double halfToDouble(uint16_t h) {
    const int exp = (h >> 10) & 0x1f;
    const int mant = h & 0x3ff;
    double v = exp == 0 ? std::ldexp(mant, -24) : std::ldexp(1024 + mant, exp - 25);
    return (h & 0x8000) ? -v : v;
}

// Values used by the tests are small integers and halves, exact in every dtype.
inline void store(void *base, size_t i, infiniDtype_t t, double v) {
    char *p = static_cast<char *>(base) + i * elementSize(t);
    switch (t) {
    case INFINI_DTYPE_F32: { float f = static_cast<float>(v); std::memcpy(p, &f, 4); break; }
    case INFINI_DTYPE_I32: { int32_t x = static_cast<int32_t>(v); std::memcpy(p, &x, 4); break; }
    case INFINI_DTYPE_I64: { int64_t x = static_cast<int64_t>(v); std::memcpy(p, &x, 8); break; }
    case INFINI_DTYPE_BF16: {
        float f = static_cast<float>(v);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        uint16_t b = static_cast<uint16_t>(bits >> 16); // exact for the test values
        std::memcpy(p, &b, 2);
        break;
    }
    case INFINI_DTYPE_F16: { // exact for integers and halves below 2048
        uint16_t h = 0;
        double a = std::fabs(v);
        if (a != 0) {
            int e = 0;
            double m = std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
            h = static_cast<uint16_t>(((e + 14) << 10) | (static_cast<int>(m * 2048) - 1024));
        }
        if (v < 0) h |= 0x8000;
        std::memcpy(p, &h, 2);
        break;
    }
    default: break;
    }
}

inline double load(const void *base, size_t i, infiniDtype_t t) {
    const char *p = static_cast<const char *>(base) + i * elementSize(t);
    switch (t) {
    case INFINI_DTYPE_F32: { float f; std::memcpy(&f, p, 4); return f; }
    case INFINI_DTYPE_I32: { int32_t x; std::memcpy(&x, p, 4); return x; }
    case INFINI_DTYPE_I64: { int64_t x; std::memcpy(&x, p, 8); return static_cast<double>(x); }
    case INFINI_DTYPE_BF16: {
        uint16_t b; std::memcpy(&b, p, 2);
        uint32_t bits = static_cast<uint32_t>(b) << 16; float f; std::memcpy(&f, &bits, 4); return f;
    }
    case INFINI_DTYPE_F16: { uint16_t h; std::memcpy(&h, p, 2); return halfToDouble(h); }
    default: return NAN;
    }
}

// Rank r's element i: 1..5, so that sums, products (of up to 4 ranks) and averages stay exact.
inline double value(int rank, size_t i) { return static_cast<double>((i * 7 + static_cast<size_t>(rank) * 3) % 5 + 1); }

inline bool isInteger(infiniDtype_t t) { return t == INFINI_DTYPE_I32 || t == INFINI_DTYPE_I64; }

inline double combine(const double *vs, size_t n, infinicclReduceOp_t op, infiniDtype_t t) {
    double acc = vs[0];
    for (size_t r = 1; r < n; ++r) {
        switch (op) {
        case INFINICCL_PROD: acc *= vs[r]; break;
        case INFINICCL_MAX: acc = std::fmax(acc, vs[r]); break;
        case INFINICCL_MIN: acc = std::fmin(acc, vs[r]); break;
        default: acc += vs[r]; break;
        }
    }
    if (op == INFINICCL_AVG) acc = isInteger(t) ? std::trunc(acc / static_cast<double>(n)) : acc / static_cast<double>(n);
    return acc;
}

inline const char *dtypeName(infiniDtype_t t) {
    switch (t) {
    case INFINI_DTYPE_F32: return "f32";
    case INFINI_DTYPE_F16: return "f16";
    case INFINI_DTYPE_BF16: return "bf16";
    case INFINI_DTYPE_I32: return "i32";
    case INFINI_DTYPE_I64: return "i64";
    default: return "?";
    }
}

inline const char *opName(infinicclReduceOp_t op) {
    static const char *const names[] = {"sum", "prod", "max", "min", "avg"};
    return names[op];
}

inline const char *typeName(infiniDevice_t t) { return t == INFINI_DEVICE_CPU ? "cpu" : t == INFINI_DEVICE_NVIDIA ? "nvidia" : "other"; }

// Device types with a usable infiniccl plugin (CommInitAll of two devices works) and >= 2 devices.
inline std::vector<infiniDevice_t> backendsUnderTest() {
    std::vector<infiniDevice_t> out;
    for (infiniDevice_t t : {INFINI_DEVICE_CPU, INFINI_DEVICE_NVIDIA}) {
        int count = 0;
        if (infinirtGetDeviceCount(t, &count) != INFINI_STATUS_SUCCESS || count < 2) continue;
        infinicclComm_t comms[2] = {nullptr, nullptr};
        if (infinicclCommInitAll(t, comms, 2, nullptr) != INFINI_STATUS_SUCCESS) continue;
        infinicclCommDestroy(comms[0]);
        infinicclCommDestroy(comms[1]);
        out.push_back(t);
    }
    return out;
}

} // namespace ccltest
