// plugin_table.hpp - building a plugin's function table. Part of the header-only plugin-support
// layer (backends/common/, namespace infinirt::common).
//
// The entries come from the one list, INFINIRT_PLUGIN_ENTRIES (include/infinirt_plugin.h). A
// backend writes, in its namespace:
//   backend header:   INFINIRT_COMMON_DECLARE_ENTRIES();        (every entry, by its impl name)
//   at global scope:  INFINIRT_COMMON_HOT_ENTRIES(infinirt::cpu); (the HOT ones' guards, below)
//   plugin file:
//     const infinirtPluginTable_t kTable =
//         INFINIRT_COMMON_TABLE("cpu", INFINI_DEVICE_CPU, common::LeftNull<common::Entry::graph_launch, ...>);
//     INFINIRT_COMMON_DEFINE_PLUGIN_ENTRY(kTable)
// and defines each entry it fills. So a new entry is written once in the list, then implemented
// (or named in LeftNull) by each backend; one neither defined nor left NULL fails the link.
//
// Every entry goes in inside the exception guard (entry_guard.hpp), so no entry can forget it;
// entries left NULL are answered by the loader with INFINI_STATUS_NOT_IMPLEMENTED (or the
// fallback documented at the entry).
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

// get_plugin_traits's answer: the staging rank and the native error names (static storage).
inline infiniStatus_t reportTraits(infinirtPluginTraits_t *traits, int host_staging_rank, const char *out_of_memory,
                                   const char *failure) noexcept {
    traits->host_staging_rank = host_staging_rank;
    traits->native_out_of_memory_error = out_of_memory;
    traits->native_failure_error = failure;
    return INFINI_STATUS_SUCCESS;
}

// Every entry of the plugin table, in table order.
enum class Entry : int {
#define INFINIRT_COMMON_ENTRY_ENUM_(c, field, Type, impl, api, kind, params) field,
    INFINIRT_PLUGIN_ENTRIES(INFINIRT_COMMON_ENTRY_ENUM_, ~, ~)
#undef INFINIRT_COMMON_ENTRY_ENUM_
};

// The entries a backend leaves NULL (INFINIRT_COMMON_FILL_ENTRIES).
template <Entry... E>
struct LeftNull {
    static constexpr bool contains(Entry e) noexcept { return ((e == E) || ... || false); }
};

} // namespace infinirt::common

// table.field = fn, wrapped in the exception guard.
#define INFINIRT_COMMON_ENTRY(table, field, fn) ((table).field = ::infinirt::common::guarded<fn>)

// Declares every entry in the enclosing namespace under its impl name
// (`infinirtPluginStreamCreateFn streamCreate;`). Declaring one the backend never defines is
// harmless as long as it is left NULL.
#define INFINIRT_COMMON_DECLARE_ENTRY_(c, field, Type, impl, api, kind, params) infinirtPlugin##Type##Fn impl;
#define INFINIRT_COMMON_DECLARE_ENTRIES()                                                                    \
    INFINIRT_PLUGIN_ENTRIES(INFINIRT_COMMON_DECLARE_ENTRY_, ~, ~) static_assert(true, "")

// Installs, in `t`, every entry of the enclosing namespace but those of the LeftNull<...> given,
// each inside the exception guard. An entry left NULL is never referenced, so it need not exist.
#define INFINIRT_COMMON_FILL_ENTRY_(left_null, field, Type, impl, api, kind, params)                        \
    if constexpr (!decltype(left_null)::contains(::infinirt::common::Entry::field)) {                       \
        table.field = ::infinirt::common::guarded<impl>;                                                    \
    }
#define INFINIRT_COMMON_FILL_ENTRIES(t, ...)                                                                 \
    [](infinirtPluginTable_t &table, auto left_null) {                                                       \
        INFINIRT_PLUGIN_ENTRIES(INFINIRT_COMMON_FILL_ENTRY_, ~, left_null)                                   \
    }((t), __VA_ARGS__{})

// A whole table: the header (name, device type) and every entry but those of the LeftNull<...>.
#define INFINIRT_COMMON_TABLE(name, device_type, ...)                                                        \
    [] {                                                                                                     \
        infinirtPluginTable_t table_ = ::infinirt::common::tableHeader((name), (device_type));              \
        INFINIRT_COMMON_FILL_ENTRIES(table_, __VA_ARGS__);                                                   \
        return table_;                                                                                       \
    }()

// Sets every entry of one group of the list (INFINIRT_PLUGIN_ENTRIES_MODULES, ...) to NULL, for
// a group that is all or none.
#define INFINIRT_COMMON_CLEAR_ENTRY_(t, field, Type, impl, api, kind, params) (t).field = nullptr;
#define INFINIRT_COMMON_CLEAR_GROUP(t, GROUP) GROUP(INFINIRT_COMMON_CLEAR_ENTRY_, ~, t) static_assert(true, "")

// At global scope, after the declarations of namespace `ns`: the guards of the HOT entries are
// instantiated where each is defined (INFINIRT_COMMON_HOT_ENTRY_HERE, entry_guard.hpp).
#define INFINIRT_COMMON_HOT_ENTRY_OF_(ns, field, Type, impl, api, kind, params) INFINIRT_COMMON_HOT_##kind(ns, impl)
#define INFINIRT_COMMON_HOT_HOT(ns, impl) INFINIRT_COMMON_HOT_ENTRY(::ns::impl);
#define INFINIRT_COMMON_HOT_COLD(ns, impl)
#define INFINIRT_COMMON_HOT_LOADER(ns, impl)
#define INFINIRT_COMMON_HOT_ENTRIES(ns) INFINIRT_PLUGIN_ENTRIES(INFINIRT_COMMON_HOT_ENTRY_OF_, ~, ns) static_assert(true, "")

#endif // INFINIRT_COMMON_PLUGIN_TABLE_HPP
