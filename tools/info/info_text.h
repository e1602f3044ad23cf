// info_text.h - infinirt-info's default output: the backends (and why any did not load), each
// device with what its backend knows of it, and the peer matrix when there are several devices.
#pragma once

#include "info_inventory.h"

namespace infinirt_info_tool {

// Prints the report on stdout.
void printText(const Inventory &inventory);

} // namespace infinirt_info_tool
