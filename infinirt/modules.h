// The loader's records behind module and kernel handles, and the references that keep a module's
// code alive while a graph holds launches of its kernels.
//
// Lifetime: a ModuleRecord is counted. Its handle holds one reference; every captured launch (a
// generic graph's op, or a native graph's ModuleRefs) holds one more. infinirtModuleUnload kills
// the module handle and the handles of its kernels at once and drops the handle's reference; the
// plugin's module_unload runs when the last reference goes, so a graph that launches the kernels
// stays valid after the unload (the release is deferred, never refused).
#pragma once

#include "dispatch.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace infinirt {

struct ModuleRecord;

// What the loader keeps per kernel to validate launches without asking the plugin.
// What a launch reads (the limits it is checked against) comes first, in the record's first cache
// line; the rest serves loading, captures and messages.
struct alignas(64) KernelRecord {
    int64_t max_threads = -1;        // MAX_THREADS_PER_BLOCK; -1 when the plugin did not say
    int64_t num_params = -1;         // NUM_PARAMS; -1 when unknown
    std::atomic<int64_t> max_dynamic_shared{-1}; // MAX_DYNAMIC_SHARED_BYTES; -1 when unknown
    ModuleRecord *module = nullptr;
    void *native = nullptr;  // the plugin's kernel
    void *handle = nullptr;  // its loader handle
    std::string name;
};

struct ModuleRecord {
    Backend *backend = nullptr;
    int type = 0;
    int device = 0;
    void *native = nullptr; // the plugin's module
    std::atomic<int> refs{1};
    std::mutex mutex; // guards kernels
    std::map<std::string, std::unique_ptr<KernelRecord>> kernels;

    void retain() { refs.fetch_add(1, std::memory_order_relaxed); }
    // Drops a reference; the last one unloads the plugin's module. Returns the status of that
    // unload (SUCCESS when it is not the last reference), with the thread's last error written
    // on failure when `report` is true, else only logged.
    infiniStatus_t release(bool report);
};

// A counted reference to a module, held by captured launches.
class ModuleRef {
public:
    ModuleRef() = default;
    explicit ModuleRef(ModuleRecord *m) : m_(m) {
        if (m_ != nullptr) {
            m_->retain();
        }
    }
    ModuleRef(const ModuleRef &o) : ModuleRef(o.m_) {}
    ModuleRef &operator=(const ModuleRef &o) {
        ModuleRef copy(o);
        std::swap(m_, copy.m_);
        return *this;
    }
    ~ModuleRef() {
        if (m_ != nullptr) {
            m_->release(false);
        }
    }
    ModuleRecord *get() const { return m_; }

private:
    ModuleRecord *m_ = nullptr;
};

// The modules a native capture, graph or exec launches kernels of.
struct ModuleRefs {
    std::mutex mutex;
    std::vector<ModuleRef> modules;
    void add(ModuleRecord *m); // once per module; may throw std::bad_alloc
    // The events a native capture recorded or waited for, each with its slot's key (tag and
    // generation) then: a launch of the graph checks that every one is still alive
    // (infinirtGraphLaunch).
    struct EventUse {
        const HandleSlot *slot;
        uint64_t key;
    };
    std::vector<EventUse> events;
    void addEvent(const HandleSlot *event); // once per event; may throw std::bad_alloc
    // True when every event in `events` is still the live handle it was.
    bool eventsAlive() const;
};

// The format of an image given as AUTO, from its first bytes; AUTO when it cannot tell (then
// `why` says what it saw).
infinirtModuleFormat_t sniffFormat(const void *data, size_t size, std::string &why);

} // namespace infinirt
