// The element-wise reductions of the cpu backend, per dtype: out[i] = op over ranks of in[r][i],
// accumulated in float for F16/BF16 and in the type itself otherwise (integers wrap, as in
// NCCL); AVG divides the sum by the number of ranks. Blocks of elements at a time, written to
// one or more outputs.
#include "cpu_backend.h"

#include <cstring>
#include <type_traits>

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

// Storage type T, accumulator A, with load/store between them; average() is AVG's last step.
template <typename T, typename A>
struct Plain {
    using Store = T;
    using Acc = A;
    static A load(T v) { return static_cast<A>(v); }
    static T store(A v) { return static_cast<T>(v); }
    static T average(A v, int n) { return static_cast<T>(v / static_cast<A>(n)); }
};
struct Half {
    using Store = uint16_t;
    using Acc = float;
    static float load(uint16_t v) { return halfToFloat(v); }
    static uint16_t store(float v) { return floatToHalf(v); }
    static uint16_t average(float v, int n) { return floatToHalf(v / static_cast<float>(n)); }
};
struct BHalf {
    using Store = uint16_t;
    using Acc = float;
    static float load(uint16_t v) { return bf16ToFloat(v); }
    static uint16_t store(float v) { return floatToBf16(v); }
    static uint16_t average(float v, int n) { return floatToBf16(v / static_cast<float>(n)); }
};
// Integer SUM, PROD and AVG: accumulated unsigned, at least as wide as unsigned int (so that no
// product is promoted to a signed int), cut to the type: they wrap, with no undefined overflow.
// AVG divides the wrapped sum in the type itself.
template <typename T>
struct Wrap {
    using Store = T;
    using Acc = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    static Acc load(T v) { return static_cast<Acc>(v); }
    static T store(Acc v) { return static_cast<T>(v); }
    static T average(Acc v, int n) { return static_cast<T>(static_cast<T>(v) / static_cast<T>(n)); }
};

struct Sum { template <typename A> static A apply(A a, A b) { return static_cast<A>(a + b); } };
struct Prod { template <typename A> static A apply(A a, A b) { return static_cast<A>(a * b); } };
struct Max { template <typename A> static A apply(A a, A b) { return a > b ? a : b; } };
struct Min { template <typename A> static A apply(A a, A b) { return a < b ? a : b; } };

// Elements [i, i + len) of every output, len <= the block size B: every input is loaded before
// any output is stored, so an output that is one of the inputs is read before it is written.
// Inlined with len == B, the loops have a constant trip count and the compiler vectorises them.
template <typename Conv, typename Fn, bool Average, size_t B>
__attribute__((always_inline)) inline void reduceBlock(void *const *out, int nout, const void *const *in, int n,
                                                       size_t i, size_t len) {
    using T = typename Conv::Store;
    using A = typename Conv::Acc;
    A acc[B];
    const T *first = static_cast<const T *>(in[0]) + i;
    for (size_t k = 0; k < len; ++k) acc[k] = Conv::load(first[k]);
    for (int r = 1; r < n; ++r) {
        const T *p = static_cast<const T *>(in[r]) + i;
        for (size_t k = 0; k < len; ++k) acc[k] = Fn::apply(acc[k], Conv::load(p[k]));
    }
    T result[B];
    for (size_t k = 0; k < len; ++k) result[k] = Average ? Conv::average(acc[k], n) : Conv::store(acc[k]);
    for (int o = 0; o < nout; ++o) std::memcpy(static_cast<T *>(out[o]) + i, result, len * sizeof(T));
}

// The op is a template argument so that the element loop has no branch on it.
template <typename Conv, typename Fn, bool Average = false>
void reduceLoop(void *const *out, int nout, const void *const *in, int n, size_t count) {
    constexpr size_t B = 256 / sizeof(typename Conv::Store);
    size_t i = 0;
    for (; i + B <= count; i += B) reduceBlock<Conv, Fn, Average, B>(out, nout, in, n, i, B);
    if (i < count) reduceBlock<Conv, Fn, Average, B>(out, nout, in, n, i, count - i);
}

template <typename Conv>
void reduceTyped(void *const *out, int nout, const void *const *in, int n, size_t count, infinicclReduceOp_t op) {
    switch (op) {
    case INFINICCL_PROD: reduceLoop<Conv, Prod>(out, nout, in, n, count); break;
    case INFINICCL_MAX: reduceLoop<Conv, Max>(out, nout, in, n, count); break;
    case INFINICCL_MIN: reduceLoop<Conv, Min>(out, nout, in, n, count); break;
    case INFINICCL_AVG: reduceLoop<Conv, Sum, true>(out, nout, in, n, count); break;
    default: reduceLoop<Conv, Sum>(out, nout, in, n, count); break;
    }
}

// Integers: MIN and MAX in the type itself, the others wrapping (Wrap).
template <typename T>
void reduceInt(void *const *out, int nout, const void *const *in, int n, size_t count, infinicclReduceOp_t op) {
    switch (op) {
    case INFINICCL_PROD: reduceLoop<Wrap<T>, Prod>(out, nout, in, n, count); break;
    case INFINICCL_MAX: reduceLoop<Plain<T, T>, Max>(out, nout, in, n, count); break;
    case INFINICCL_MIN: reduceLoop<Plain<T, T>, Min>(out, nout, in, n, count); break;
    case INFINICCL_AVG: reduceLoop<Wrap<T>, Sum, true>(out, nout, in, n, count); break;
    default: reduceLoop<Wrap<T>, Sum>(out, nout, in, n, count); break;
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

void reduceInto(void *const *out, int nout, const void *const *in, int n, size_t count, infiniDtype_t dtype,
                infinicclReduceOp_t op) {
    switch (dtype) {
    case INFINI_DTYPE_I8: reduceInt<int8_t>(out, nout, in, n, count, op); break;
    case INFINI_DTYPE_U8: reduceInt<uint8_t>(out, nout, in, n, count, op); break;
    case INFINI_DTYPE_I16: reduceInt<int16_t>(out, nout, in, n, count, op); break;
    case INFINI_DTYPE_U16: reduceInt<uint16_t>(out, nout, in, n, count, op); break;
    case INFINI_DTYPE_I32: reduceInt<int32_t>(out, nout, in, n, count, op); break;
    case INFINI_DTYPE_U32: reduceInt<uint32_t>(out, nout, in, n, count, op); break;
    case INFINI_DTYPE_I64: reduceInt<int64_t>(out, nout, in, n, count, op); break;
    case INFINI_DTYPE_U64: reduceInt<uint64_t>(out, nout, in, n, count, op); break;
    case INFINI_DTYPE_F16: reduceTyped<Half>(out, nout, in, n, count, op); break;
    case INFINI_DTYPE_BF16: reduceTyped<BHalf>(out, nout, in, n, count, op); break;
    case INFINI_DTYPE_F32: reduceTyped<Plain<float, float>>(out, nout, in, n, count, op); break;
    case INFINI_DTYPE_F64: reduceTyped<Plain<double, double>>(out, nout, in, n, count, op); break;
    default: break; // refused by supports()
    }
}

} // namespace infiniccl::cpu
