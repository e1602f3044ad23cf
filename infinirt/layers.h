// The optional layers interposed on the plugin tables at load time (docs/ARCHITECTURE.md, "Layers"):
//   INFINIRT_VALIDATION=1        validation (layer_validation.cpp): ranges, freed memory, devices, leaks
//   INFINIRT_TRACE=path.json     trace (layer_trace.cpp): Chrome trace events of every plugin call
//   INFINIRT_TRACE_DEVICE=1      adds device-side spans of copies, fills and launches
//   INFINIRT_FAULT_INJECT=...    fault injection (layer_fault.cpp): named entries fail at a rate
// With none of them set nothing is installed: the tables hold the plugins' own entries and the
// dispatch path is exactly what it is without this file. With any set, every entry of a loaded
// backend's table is replaced by a wrapper (layer_table.cpp) that runs the enabled layers around
// the plugin's entry, kept in layerNext(type).
#pragma once

#include "internal.h"

#include <cstdint>

namespace infinirt {

// Every entry of the plugin table, in table order (the one list: INFINIRT_PLUGIN_ENTRIES in
// include/infinirt_plugin.h). The layers wrap all but the LOADER kind.
enum class Entry : int {
#define INFINIRT_LAYER_ENUM(c, field, Type, impl, api, kind, params) field,
    INFINIRT_PLUGIN_ENTRIES(INFINIRT_LAYER_ENUM, ~, ~)
#undef INFINIRT_LAYER_ENUM
    Count
};
constexpr int kEntryCount = static_cast<int>(Entry::Count);

// "memcpy_async"; "infinirtMemcpyAsync".
const char *entryField(Entry e);
const char *entryApi(Entry e);
// Whether the layers wrap it (every kind but LOADER).
bool entryWrapped(Entry e);

// What an argument of an entry is, for the layers: the roles of INFINIRT_PLUGIN_ENTRIES.
enum class Arg : uint8_t {
    Skip,      // not recorded (outputs the layers do not read, strings, structs)
    Device,    // the device index
    Value,     // an integer, enum or flags
    Size,      // a byte count (or an image count)
    Dst,       // device-side range start written by the call (its size is the entry's Size)
    Src,       // range start read by the call
    FreePtr,   // memory being released
    OutMem,    // void **: memory created
    OutGlobal, // void **: a module global's address (memory the plugin made, not infinirt)
    OutGlobalSize, // size_t * (may be NULL): that global's size
    Stream, Event, Graph, Exec, Module, Kernel,                // a plugin object in use
    OutStream, OutEvent, OutGraph, OutExec, OutModule, OutKernel, // void **: an object created
    DestroyStream, DestroyEvent, DestroyGraph, DestroyExec, DestroyModule, // an object destroyed
    KernelArgs, // const infinirtKernelArg_t *, its count in the following Value
    Mapped,     // void *: a range made memory (mem_map), its size the entry's Size
    Unmapped    // void *: a range given back (mem_unmap), its size the entry's Size
};

constexpr int kMaxArgs = 7;

// One plugin call as the layers see it: the backend, the entry and its arguments as integers.
struct LayerCall {
    int type = 0;
    Entry entry = Entry::Count;
    int argc = 0;
    const Arg *roles = nullptr;
    const char *const *names = nullptr;
    uint64_t value[kMaxArgs] = {};
    int device() const;
    // The first argument with role `r`, or 0.
    uint64_t find(Arg r) const;
};

struct LayerFlags {
    bool validation = false;
    bool trace = false;
    bool trace_device = false;
    bool fault = false;
    bool any() const { return validation || trace || fault; }
};
// Read once, before the plugins load; constant afterwards.
extern LayerFlags g_layers;

// Reads the variables (called once while loading) and, when any layer is on, replaces the
// entries of every backend that serves a device type with the wrappers. Registers the exit work
// (trace flush, leak report).
void installLayers(Registry &r);

// The plugin's own table behind the wrappers of device type `type`.
const infinirtPluginTable_t &layerNext(int type);

// ---- validation (layer_validation.cpp) ----
// Before the plugin call: SUCCESS, or the refusal (set as the plugin's detail, so the loader
// reports it like a plugin's own).
infiniStatus_t validateBefore(const LayerCall &c);
// After it, with its status and, for creating entries, the object created.
void validateAfter(const LayerCall &c, infiniStatus_t st);
// Reports from the loader's own cold paths (no plugin call sees them).
void validationCrossBackendWait(int stream_type, int stream_device, int event_type, int event_device);
void validationElapsedAcrossDevices(int type_a, int device_a, int type_b, int device_b);
void validationExitReport();
void validationInit();

// ---- trace (layer_trace.cpp) ----
void traceInit(const char *path);
uint64_t traceNow();
void traceSpan(const LayerCall &c, uint64_t start_ns, uint64_t end_ns, infiniStatus_t st);
// INFINIRT_TRACE_DEVICE: after a successful copy, fill or launch on `stream` of (type, device).
void traceDeviceSpanBegin(const LayerCall &c, void *stream, void *&start_event);
void traceDeviceSpanEnd(const LayerCall &c, void *stream, void *start_event, bool ok);
// After a synchronising call: resolves the device spans that completed.
void traceDeviceResolve(int type, int device);
void traceExitFlush();

// ---- fault injection (layer_fault.cpp) ----
bool faultInit(const char *spec);
// 0 when this call of `c.entry` runs as usual; else the call's number (1-based) among the calls
// of that entry, which must then fail through faultFail.
uint64_t faultFires(const LayerCall &c);
// Sets the detail of injected failure number `n` of `c.entry` and returns its status.
infiniStatus_t faultFail(const LayerCall &c, uint64_t n);

// The calling thread's kernel id (as in the trace and the reports), asked once per thread.
long layerThreadId();

// Reports a layer's finding: on stderr (always, one line, "infinirt validation: ...") and in the
// log.
void layerReport(const char *layer, const char *fmt, ...) INFINIRT_PRINTF(2, 3);

} // namespace infinirt
