// The element-wise reductions of the cpu backend, per dtype: out[i] = op over ranks of in[r][i],
// accumulated in float for F16/BF16 and in the type itself otherwise (integers wrap, as in
// NCCL); AVG divides the sum by the number of ranks.
#include "cpu_backend.h"

#include <cstring>

namespace infiniccl::cpu {

namespace {

float halfToFloat(uint16_t h) {
    const uint32_t sign = (h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (mant << 13);
    } else if (mant == 0) {
        bits = sign;
    } else { // subnormal: normalise
        exp = 113;
        while ((mant & 0x400u) == 0) {
            mant <<= 1;
            --exp;
        }
        bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint16_t floatToHalf(float f) { // round to nearest even
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0));
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u); // overflows to inf
    if (abs < 0x38800000u) { // subnormal or zero in half
        if (abs < 0x33000000u) return static_cast<uint16_t>(sign);
        const uint32_t e = abs >> 23;
        const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126 - e;
        uint32_t h = m >> shift;
        const uint32_t rem = m & ((1u << shift) - 1);
        const uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1u))) ++h;
        return static_cast<uint16_t>(sign | h);
    }
    uint32_t h = ((abs - 0x38000000u) >> 13);
    const uint32_t rem = abs & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
}

float bf16ToFloat(uint16_t b) {
    const uint32_t bits = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint16_t floatToBf16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u); // quiet NaN
    x += 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(x >> 16);
}

// Storage type T, accumulator A, with load/store between them.
template <typename T, typename A>
struct Plain {
    using Store = T;
    using Acc = A;
    static A load(T v) { return static_cast<A>(v); }
    static T store(A v) { return static_cast<T>(v); }
};
struct Half {
    using Store = uint16_t;
    using Acc = float;
    static float load(uint16_t v) { return halfToFloat(v); }
    static uint16_t store(float v) { return floatToHalf(v); }
};
struct BHalf {
    using Store = uint16_t;
    using Acc = float;
    static float load(uint16_t v) { return bf16ToFloat(v); }
    static uint16_t store(float v) { return floatToBf16(v); }
};

struct Sum { template <typename A> static A apply(A a, A b) { return static_cast<A>(a + b); } };
struct Prod { template <typename A> static A apply(A a, A b) { return static_cast<A>(a * b); } };
struct Max { template <typename A> static A apply(A a, A b) { return a > b ? a : b; } };
struct Min { template <typename A> static A apply(A a, A b) { return a < b ? a : b; } };

// The op is a template argument so that the element loop has no branch on it.
template <typename Conv, typename Fn>
void reduceLoop(void *out, const void *const *in, int n, size_t count, bool average) {
    using T = typename Conv::Store;
    using A = typename Conv::Acc;
    T *o = static_cast<T *>(out);
    for (size_t i = 0; i < count; ++i) {
        A acc = Conv::load(static_cast<const T *>(in[0])[i]);
        for (int r = 1; r < n; ++r) acc = Fn::apply(acc, Conv::load(static_cast<const T *>(in[r])[i]));
        if (average) acc = static_cast<A>(acc / static_cast<A>(n));
        o[i] = Conv::store(acc);
    }
}

template <typename Conv>
void reduceTyped(void *out, const void *const *in, int n, size_t count, infinicclReduceOp_t op) {
    switch (op) {
    case INFINICCL_PROD: reduceLoop<Conv, Prod>(out, in, n, count, false); break;
    case INFINICCL_MAX: reduceLoop<Conv, Max>(out, in, n, count, false); break;
    case INFINICCL_MIN: reduceLoop<Conv, Min>(out, in, n, count, false); break;
    default: reduceLoop<Conv, Sum>(out, in, n, count, op == INFINICCL_AVG); break;
    }
}

// Integers: SUM and PROD in uint64_t, cut to the type (wrap, no undefined overflow), MIN/MAX and AVG's
// division in the type itself.
template <typename T>
void reduceInt(void *out, const void *const *in, int n, size_t count, infinicclReduceOp_t op) {
    using U = uint64_t; // wide enough that no product is promoted to a signed int
    if (op == INFINICCL_MAX || op == INFINICCL_MIN) {
        reduceTyped<Plain<T, T>>(out, in, n, count, op);
        return;
    }
    T *o = static_cast<T *>(out);
    for (size_t i = 0; i < count; ++i) {
        U acc = static_cast<U>(static_cast<const T *>(in[0])[i]);
        for (int r = 1; r < n; ++r) {
            const U v = static_cast<U>(static_cast<const T *>(in[r])[i]);
            acc = op == INFINICCL_PROD ? static_cast<U>(acc * v) : static_cast<U>(acc + v);
        }
        o[i] = op == INFINICCL_AVG ? static_cast<T>(static_cast<T>(acc) / static_cast<T>(n)) : static_cast<T>(acc);
    }
}

} // namespace

size_t elementSize(infiniDtype_t dtype) {
    switch (dtype) {
    case INFINI_DTYPE_BYTE: case INFINI_DTYPE_BOOL: case INFINI_DTYPE_I8: case INFINI_DTYPE_U8: return 1;
    case INFINI_DTYPE_I16: case INFINI_DTYPE_U16: case INFINI_DTYPE_F16: case INFINI_DTYPE_BF16: return 2;
    case INFINI_DTYPE_I32: case INFINI_DTYPE_U32: case INFINI_DTYPE_F32: return 4;
    case INFINI_DTYPE_I64: case INFINI_DTYPE_U64: case INFINI_DTYPE_F64: return 8;
    default: return 0;
    }
}

bool dtypeSupported(infiniDtype_t dtype, int reduction) {
    if (elementSize(dtype) == 0) return false;
    return reduction == 0 || (dtype != INFINI_DTYPE_BYTE && dtype != INFINI_DTYPE_BOOL);
}

void reduceInto(void *out, const void *const *in, int n, size_t count, infiniDtype_t dtype, infinicclReduceOp_t op) {
    switch (dtype) {
    case INFINI_DTYPE_I8: reduceInt<int8_t>(out, in, n, count, op); break;
    case INFINI_DTYPE_U8: reduceInt<uint8_t>(out, in, n, count, op); break;
    case INFINI_DTYPE_I16: reduceInt<int16_t>(out, in, n, count, op); break;
    case INFINI_DTYPE_U16: reduceInt<uint16_t>(out, in, n, count, op); break;
    case INFINI_DTYPE_I32: reduceInt<int32_t>(out, in, n, count, op); break;
    case INFINI_DTYPE_U32: reduceInt<uint32_t>(out, in, n, count, op); break;
    case INFINI_DTYPE_I64: reduceInt<int64_t>(out, in, n, count, op); break;
    case INFINI_DTYPE_U64: reduceInt<uint64_t>(out, in, n, count, op); break;
    case INFINI_DTYPE_F16: reduceTyped<Half>(out, in, n, count, op); break;
    case INFINI_DTYPE_BF16: reduceTyped<BHalf>(out, in, n, count, op); break;
    case INFINI_DTYPE_F32: reduceTyped<Plain<float, float>>(out, in, n, count, op); break;
    case INFINI_DTYPE_F64: reduceTyped<Plain<double, double>>(out, in, n, count, op); break;
    default: break; // refused by supports()
    }
}

} // namespace infiniccl::cpu
