// native_library.hpp - a vendor library loaded once per process, with the reason when it could not
// be. Part of the header-only plugin-support layer (backends/common/, namespace infinirt::common).
//
//   common::LoadOutcome loadLibrary() { ... dlopen, resolve, or copyString(out.reason, ...) ... }
//   bool load(const char **reason) { return common::loadOnce<loadLibrary>(reason); }
#ifndef INFINIRT_COMMON_NATIVE_LIBRARY_HPP
#define INFINIRT_COMMON_NATIVE_LIBRARY_HPP

namespace infinirt::common {

// What loading a vendor library gave: ok, or why not (a sentence for the backend's reason).
struct LoadOutcome {
    bool ok;
    char reason[512];
};

// Runs `Load` once per process (thread-safe, a function-local static) and answers its outcome
// from then on; `reason` (optional) receives the reason text, "" on success, static storage.
// The library stays mapped for good: plugins are never unloaded.
template <LoadOutcome (*Load)()>
bool loadOnce(const char **reason) {
    static const LoadOutcome outcome = Load();
    if (reason != nullptr) {
        *reason = outcome.reason;
    }
    return outcome.ok;
}

} // namespace infinirt::common

#endif // INFINIRT_COMMON_NATIVE_LIBRARY_HPP
