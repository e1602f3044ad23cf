// entry_guard.hpp - no C++ exception crosses the plugin boundary. Part of the header-only
// plugin-support layer (backends/common/, namespace infinirt::common).
//
// The guard is applied where the table is built, not inside each entry, so no entry can forget
// it: every function pointer a plugin puts in its infinirtPluginTable_t is `guarded<fn>`
// (INFINIRT_COMMON_ENTRY in plugin_table.hpp). The wrapper is a direct call of `fn` inside a try block: nothing is paid on
// the path that does not throw.
#ifndef INFINIRT_COMMON_ENTRY_GUARD_HPP
#define INFINIRT_COMMON_ENTRY_GUARD_HPP

#include "common/host_services.hpp"

#include <exception>
#include <cstdio>
#include <cstring>
#include <new>

namespace infinirt::common {

// The name of the plugin in guard messages; set once by negotiate().
inline const char *g_plugin_name = "plugin";

// The entry's name for a guard message: `where` itself, or, for a guarded<fn> wrapper's
// __PRETTY_FUNCTION__ ("... [with Args = {...}; infiniStatus_t (* Fn)(Args ...) =
// infinirt::cpu::streamCreate]"), the part naming fn.
// Only computed once an exception was caught.
struct EntryName {
    char text[128];
};
inline EntryName entryName(const char *where) noexcept {
    EntryName out{};
    const char *start = std::strstr(where, "(Args ...) = ");
    start = start != nullptr ? start + 13 : where;
    const size_t length = std::strcspn(start, ";]");
    std::snprintf(out.text, sizeof out.text, "%.*s", static_cast<int>(length), start);
    return out;
}

// Runs `body` (returning infiniStatus_t) and turns an escaping exception into a status with a
// detail: std::bad_alloc -> OUT_OF_MEMORY, anything else -> INTERNAL_ERROR with its what() text.
// `where` names the entry in the detail (see entryName).
template <class Body>
infiniStatus_t guard(const char *where, Body &&body) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc &) {
        return fail(INFINI_STATUS_OUT_OF_MEMORY, "%s: out of host memory inside the %s plugin (std::bad_alloc)",
                    entryName(where).text, g_plugin_name);
    } catch (const std::exception &e) {
        return fail(INFINI_STATUS_INTERNAL_ERROR, "%s: unexpected exception inside the %s plugin: %s",
                    entryName(where).text, g_plugin_name, e.what());
    } catch (...) {
        return fail(INFINI_STATUS_INTERNAL_ERROR, "%s: unexpected exception inside the %s plugin",
                    entryName(where).text, g_plugin_name);
    }
}

template <auto Fn>
struct Guarded;

template <class... Args, infiniStatus_t (*Fn)(Args...)>
struct Guarded<Fn> {
    static infiniStatus_t call(Args... args) noexcept {
        return guard(__PRETTY_FUNCTION__, [&] { return Fn(args...); });
    }
};

// `guarded<fn>` is a function with fn's signature that runs fn inside guard(). Use it for every
// entry placed in a plugin table (and in a vendor table whose entries reach the plugin table).
template <auto Fn>
constexpr auto guarded = &Guarded<Fn>::call;

} // namespace infinirt::common

#endif // INFINIRT_COMMON_ENTRY_GUARD_HPP
