// info_json.h - infinirt-info --json: the inventory as one JSON document (schema in README.md,
// "schema_version" 2). A property the backend does not know is left out, never given a placeholder.
#pragma once

#include "info_inventory.h"

namespace infinirt_info_tool {

// The layout of --json: raised when a field changes meaning or goes away (not when one is added).
constexpr int kJsonSchemaVersion = 2; // 2: the peer flags are true/false (were 0/1)

// Prints the document on stdout; `version` is infinirt's, given as "infinirt_version".
void printJson(const Inventory &inventory, const char *version);

} // namespace infinirt_info_tool
