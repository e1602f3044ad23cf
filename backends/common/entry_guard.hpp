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

// The status and detail for the exception being handled (call it only inside a catch block):
// std::bad_alloc -> OUT_OF_MEMORY, anything else -> INTERNAL_ERROR with its what() text. `where`
// names the entry (see entryName). Out of line and cold, so that a guarded entry's own frame holds
// nothing of it.
__attribute__((noinline, cold)) inline infiniStatus_t caughtException(const char *where) noexcept {
    try {
        throw;
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

// Runs `body` (returning infiniStatus_t) and turns an escaping exception into a status with a
// detail (caughtException). Inlined into its caller: the path that does not throw pays nothing.
template <class Body>
__attribute__((always_inline)) inline infiniStatus_t guard(const char *where, Body &&body) noexcept {
    try {
        return body();
    } catch (...) {
        return caughtException(where);
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

// Hot entries: those of kind HOT in INFINIRT_PLUGIN_ENTRIES (include/infinirt_plugin.h), called
// once per enqueue or poll. Their guard is instantiated in the file that defines the entry instead
// of the table's file, so wrapper and entry share code pages and the compiler may inline the entry
// into the wrapper: a wrapper in the table's file costs a measurable share of each call
// (docs/ARCHITECTURE.md, "Plugin entries"). At global scope:
//   in the backend's header, after the declarations:  INFINIRT_COMMON_HOT_ENTRIES(infinirt::cpu);
//     (plugin_table.hpp: INFINIRT_COMMON_HOT_ENTRY for each HOT entry of the list)
//   in the file defining one, after the definition:  INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::cpu::memcpyAsync);
// The table still installs the entry like any other. A HOT entry declared without its definition
// fails the plugin's link (the wrapper is hidden and stays undefined).
#define INFINIRT_COMMON_HOT_ENTRY(fn) extern template struct ::infinirt::common::Guarded<&fn>
#define INFINIRT_COMMON_HOT_ENTRY_HERE(fn) template struct ::infinirt::common::Guarded<&fn>

#endif // INFINIRT_COMMON_ENTRY_GUARD_HPP
