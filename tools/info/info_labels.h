// info_labels.h - infinirt-info's names for the C ABI's enums and its rendering of a device UUID,
// shared by the text and the JSON output.
#pragma once

#include "infinirt.h"

#include <string>

namespace infinirt_info_tool {

// "loaded", "unavailable", "failed", "shadowed"; "unknown" for a value newer than the tool.
const char *stateName(infinirtBackendState_t s);

// "cpu", "gpu", "accelerator"; nullptr when the backend does not know the kind.
const char *kindName(infinirtDeviceKind_t k);

// The infiniDevice_t name ("cpu", "nvidia", ..., "opencl"); "unknown" out of range.
const char *typeLabel(infiniDevice_t t);

// The UUID as 8-4-4-4-12 lowercase hex digits; "" when the device has none.
std::string uuidText(const infinirtDeviceProperties_t &p);

} // namespace infinirt_info_tool
