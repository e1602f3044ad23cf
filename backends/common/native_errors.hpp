// native_errors.hpp - a backend's table from native error codes to names and infinirt statuses,
// and the one wording of a failed native call. Part of the header-only plugin-support layer
// (backends/common/, namespace infinirt::common).
//
//   constexpr common::NativeError<cl_int> kErrors[] = {
//       INFINIRT_COMMON_NATIVE_ERROR(CL_OUT_OF_HOST_MEMORY, OUT_OF_MEMORY), ...};
//   constexpr auto kErrorTable = common::nativeErrorTable(kErrors, "CL_UNKNOWN_ERROR");
//   INFINIRT_COMMON_DEFINE_NATIVE_ERRORS(cl_int, kErrorTable, " ")   // nativeFailure & co.
#ifndef INFINIRT_COMMON_NATIVE_ERRORS_HPP
#define INFINIRT_COMMON_NATIVE_ERRORS_HPP

#include "common/host_services.hpp"

#include <cstdarg>
#include <cstddef>
#include <cstdio>

namespace infinirt::common {

template <class Code>
struct NativeError {
    Code code;
    const char *name;      // the vendor's name of the code, static storage
    infiniStatus_t status; // what an infinirt call answers for it
};

// One row: the code, its name as written, and INFINI_STATUS_<status>. Use it directly in the
// table: behind another macro, a code that is itself a macro (CL_SUCCESS) would be expanded
// before it is turned into its name.
#define INFINIRT_COMMON_NATIVE_ERROR(code, status) {code, #code, INFINI_STATUS_##status}

template <class Code>
struct NativeErrorTable {
    const NativeError<Code> *entries;
    size_t count;
    const char *unknown_name; // the name of a code the table does not list

    const NativeError<Code> *find(Code code) const noexcept {
        for (size_t i = 0; i < count; ++i) {
            if (entries[i].code == code) {
                return &entries[i];
            }
        }
        return nullptr;
    }
    // The code's name, or unknown_name. Static storage.
    const char *name(Code code) const noexcept {
        const NativeError<Code> *e = find(code);
        return e != nullptr ? e->name : unknown_name;
    }
    // The code's status; a code the table does not list is INFINI_STATUS_DRIVER_ERROR.
    infiniStatus_t status(Code code) const noexcept {
        const NativeError<Code> *e = find(code);
        return e != nullptr ? e->status : INFINI_STATUS_DRIVER_ERROR;
    }
};

template <class Code, size_t N>
constexpr NativeErrorTable<Code> nativeErrorTable(const NativeError<Code> (&entries)[N], const char *unknown_name) {
    return NativeErrorTable<Code>{entries, N, unknown_name};
}

// Sets the detail of a failed native call, "<call> failed: <name> (<code>)", followed by
// `joiner` and the formatted `what` when that is not empty, and returns `status`.
inline infiniStatus_t vnativeFailure(infiniStatus_t status, const char *call, const char *name, long long code,
                                     const char *joiner, const char *what_format, va_list args) noexcept {
    char what[kMessageCapacity] = "";
    if (what_format != nullptr) {
        std::vsnprintf(what, sizeof what, what_format, args);
    }
    return fail(status, "%s failed: %s (%lld)%s%s", call, name, code, what[0] != '\0' ? joiner : "", what);
}

__attribute__((format(printf, 6, 7))) inline infiniStatus_t nativeFailure(infiniStatus_t status, const char *call,
                                                                          const char *name, long long code,
                                                                          const char *joiner,
                                                                          const char *what_format, ...) noexcept {
    va_list args;
    va_start(args, what_format);
    vnativeFailure(status, call, name, code, joiner, what_format, args);
    va_end(args);
    return status;
}

} // namespace infinirt::common

// Defines, in the enclosing namespace, the three error functions of a backend whose native codes
// are of type `Code` and listed in `table` (a NativeErrorTable<Code>):
//   const char *nativeErrorName(Code) noexcept;   infiniStatus_t nativeStatus(Code) noexcept;
//   infiniStatus_t nativeFailure(const char *call, Code code, const char *what_format, ...) noexcept;
// nativeFailure joins the formatted `what` to the detail with `joiner` (e.g. " " or " while ").
#define INFINIRT_COMMON_DEFINE_NATIVE_ERRORS(Code, table, joiner)                                               \
    const char *nativeErrorName(Code code) noexcept { return (table).name(code); }                            \
    infiniStatus_t nativeStatus(Code code) noexcept { return (table).status(code); }                          \
    infiniStatus_t nativeFailure(const char *call, Code code, const char *what_format, ...) noexcept {        \
        va_list args;                                                                                        \
        va_start(args, what_format);                                                                         \
        const infiniStatus_t status = ::infinirt::common::vnativeFailure(                                    \
            nativeStatus(code), call, nativeErrorName(code), code, (joiner), what_format, args);              \
        va_end(args);                                                                                        \
        return status;                                                                                       \
    }

#endif // INFINIRT_COMMON_NATIVE_ERRORS_HPP
