// The element-wise reductions of the cpu backend, per dtype: out[i] = op over ranks of in[r][i],
// accumulated in float for F16/BF16 and in the type itself otherwise (integers wrap, as in
// NCCL); AVG divides the sum by the number of ranks. A cache line at a time, in vector registers
// where the op works on the stored lanes; a chunk at a time into the first output, then copied
// into the others.
#include "cpu_backend.h"

#include <algorithm>
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

// Conversions whose op works on the stored lanes themselves, with no conversion: Plain<T, T>, and
// Wrap<T> in the unsigned type of T (sums and products cut to T are the same whatever the width
// they were accumulated in). void for F16 and BF16, which accumulate in float.
template <typename Conv>
struct LaneOf {
    using type = void;
};
template <typename T>
struct LaneOf<Plain<T, T>> {
    using type = T;
};
template <typename T>
struct LaneOf<Wrap<T>> {
    using type = std::make_unsigned_t<T>;
};

// A 16-byte vector of L: the width of every x86-64 (SSE2) and aarch64 (NEON) cpu, passed in one
// register by their ABIs.
template <typename L>
struct Vec {
    typedef L type __attribute__((vector_size(16)));
};

constexpr size_t kLineBytes = 64;
constexpr size_t kLineVecs = kLineBytes / 16;
// The part of the buffers reduced into the first output before it is copied to the others.
constexpr size_t kChunkBytes = 4096;

// The elements of one 64-byte line from element i, lane-wise: the line is accumulated in
// registers (four vectors) and stored from them, so every byte of the buffers is loaded or stored
// once. Every input is loaded before the output is stored: an output that is one of the inputs is
// read before it is written.
template <typename Conv, typename Fn, bool Average>
__attribute__((always_inline)) inline void reduceLine(typename Conv::Store *out, const void *const *in, int n,
                                                      size_t i) {
    using T = typename Conv::Store;
    using L = typename LaneOf<Conv>::type;
    using V = typename Vec<L>::type;
    constexpr size_t per = 16 / sizeof(T);
    V acc[kLineVecs];
    const T *first = static_cast<const T *>(in[0]) + i;
    _Pragma("GCC unroll 4") for (size_t j = 0; j < kLineVecs; ++j) std::memcpy(&acc[j], first + j * per, 16);
    for (int r = 1; r < n; ++r) {
        const T *p = static_cast<const T *>(in[r]) + i;
        _Pragma("GCC unroll 4") for (size_t j = 0; j < kLineVecs; ++j) {
            V v;
            std::memcpy(&v, p + j * per, 16);
            acc[j] = Fn::apply(acc[j], v);
        }
    }
    if constexpr (Average) { // divided in T itself (Conv::average)
        using TV = typename Vec<T>::type;
        _Pragma("GCC unroll 4") for (size_t j = 0; j < kLineVecs; ++j) {
            TV t;
            std::memcpy(&t, &acc[j], 16);
            t = t / static_cast<T>(n);
            std::memcpy(&acc[j], &t, 16);
        }
    }
    _Pragma("GCC unroll 4") for (size_t j = 0; j < kLineVecs; ++j) std::memcpy(out + i + j * per, &acc[j], 16);
}

// Elements [i, i + len) of the output, len <= B, one element at a time through Conv: for the
// types with no lanes, and for the part of a line that ends a chunk. Every input is loaded before
// the output is stored, as in reduceLine.
template <typename Conv, typename Fn, bool Average, size_t B>
__attribute__((always_inline)) inline void reduceBlock(typename Conv::Store *out, const void *const *in, int n,
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
    for (size_t k = 0; k < len; ++k) out[i + k] = Average ? Conv::average(acc[k], n) : Conv::store(acc[k]);
}

// A chunk at a time: reduced into the first output, then copied from it (still in the L1 cache)
// into the others. Each output is then written in one sequential stream: storing every line into
// every output in turn is several times slower where the outputs do not start on a cache line.
// The op is a template argument so that the element loop has no branch on it.
template <typename Conv, typename Fn, bool Average = false>
void reduceLoop(void *const *out, int nout, const void *const *in, int n, size_t count) {
    using T = typename Conv::Store;
    constexpr size_t B = kLineBytes / sizeof(T);
    constexpr size_t C = kChunkBytes / sizeof(T);
    T *first = static_cast<T *>(out[0]);
    for (size_t at = 0; at < count; at += C) {
        const size_t end = std::min(count, at + C);
        size_t i = at;
        for (; i + B <= end; i += B) {
            if constexpr (std::is_void_v<typename LaneOf<Conv>::type>) {
                reduceBlock<Conv, Fn, Average, B>(first, in, n, i, B);
            } else {
                reduceLine<Conv, Fn, Average>(first, in, n, i);
            }
        }
        if (i < end) reduceBlock<Conv, Fn, Average, B>(first, in, n, i, end - i);
        for (int o = 1; o < nout; ++o) std::memcpy(static_cast<T *>(out[o]) + at, first + at, (end - at) * sizeof(T));
    }
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

namespace infiniccl::cpu {

namespace {

template <typename Conv>
void divideTyped(void *buf, size_t count, int n) {
    auto *p = static_cast<typename Conv::Store *>(buf);
    for (size_t i = 0; i < count; ++i) p[i] = Conv::average(Conv::load(p[i]), n);
}

} // namespace

void divideBy(void *buf, size_t count, infiniDtype_t dtype, int n) {
    switch (dtype) {
    case INFINI_DTYPE_I8: divideTyped<Wrap<int8_t>>(buf, count, n); break;
    case INFINI_DTYPE_U8: divideTyped<Wrap<uint8_t>>(buf, count, n); break;
    case INFINI_DTYPE_I16: divideTyped<Wrap<int16_t>>(buf, count, n); break;
    case INFINI_DTYPE_U16: divideTyped<Wrap<uint16_t>>(buf, count, n); break;
    case INFINI_DTYPE_I32: divideTyped<Wrap<int32_t>>(buf, count, n); break;
    case INFINI_DTYPE_U32: divideTyped<Wrap<uint32_t>>(buf, count, n); break;
    case INFINI_DTYPE_I64: divideTyped<Wrap<int64_t>>(buf, count, n); break;
    case INFINI_DTYPE_U64: divideTyped<Wrap<uint64_t>>(buf, count, n); break;
    case INFINI_DTYPE_F16: divideTyped<Half>(buf, count, n); break;
    case INFINI_DTYPE_BF16: divideTyped<BHalf>(buf, count, n); break;
    case INFINI_DTYPE_F32: divideTyped<Plain<float, float>>(buf, count, n); break;
    case INFINI_DTYPE_F64: divideTyped<Plain<double, double>>(buf, count, n); break;
    default: break;
    }
}

} // namespace infiniccl::cpu
