// plugin_table.hpp - building a plugin's function table. Part of the header-only plugin-support
// layer (backends/common/, namespace infinirt::common).
//
//   const infinirtPluginTable_t kTable = [] {
//       infinirtPluginTable_t t = common::tableHeader("cpu", INFINI_DEVICE_CPU);
//       INFINIRT_COMMON_ENTRY(t, stream_create, streamCreate);
//       ...
//       return t;
//   }();
//   INFINIRT_COMMON_DEFINE_PLUGIN_ENTRY(kTable)
//
// INFINIRT_COMMON_ENTRY installs the entry inside the exception guard (entry_guard.hpp), so no
// entry can forget it; entries left unset stay NULL, which the loader answers with
// INFINI_STATUS_NOT_IMPLEMENTED (or its documented fallback).
#ifndef INFINIRT_COMMON_PLUGIN_TABLE_HPP
#define INFINIRT_COMMON_PLUGIN_TABLE_HPP

#include "common/entry_guard.hpp"
#include "common/negotiate.hpp"

namespace infinirt::common {

// A table with its header filled (size, interface version, name, device type) and every entry NULL.
inline infinirtPluginTable_t tableHeader(const char *name, infiniDevice_t device_type) noexcept {
    infinirtPluginTable_t t{};
    t.struct_size = sizeof(infinirtPluginTable_t);
    t.version = INFINIRT_PLUGIN_INTERFACE_VERSION;
    t.name = name;
    t.device_type = device_type;
    return t;
}

} // namespace infinirt::common

// table.field = fn, wrapped in the exception guard.
#define INFINIRT_COMMON_ENTRY(table, field, fn) ((table).field = ::infinirt::common::guarded<fn>)

#endif // INFINIRT_COMMON_PLUGIN_TABLE_HPP
