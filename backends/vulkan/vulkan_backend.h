// vulkan_backend.h - private declarations shared by the files of the vulkan backend: the error
// table's helpers and the plugin entries. Nothing here crosses the plugin boundary: the loader sees
// only the table built in vulkan_plugin.cpp. The backend's objects have a header each:
// vulkan_device.h, vulkan_stream.h, vulkan_event.h, vulkan_memory.h, vulkan_module.h (with
// vulkan_spirv.h, what a module declares).
//
// Devices, their VkDevice, queues and default streams are created once and never released: the
// plugin may be called until the process exits, and driver objects must not be released from
// static destructors.
#pragma once

#include "vulkan_native_api.h"

#include "infinirt_plugin.h"

#include "common/host_services.hpp"
#include "common/plugin_table.hpp"

namespace infinirt::vulkan {

// ---- errors (vulkan_errors.cpp) --------------------------------------------------------------

// "VK_ERROR_DEVICE_LOST" etc.; "VK_UNKNOWN_ERROR" for a code not in the table. Static storage.
const char *nativeErrorName(VkResult code) noexcept;

// The status a VkResult stands for: out-of-memory codes are OUT_OF_MEMORY, VK_ERROR_DEVICE_LOST
// and codes not in the table DRIVER_ERROR. VK_SUCCESS gives SUCCESS.
infiniStatus_t nativeStatus(VkResult code) noexcept;

// For a failed Vulkan call: sets the thread's error detail (common::fail) to
// "<call> failed: <VK_NAME> (<code>) <what>" and returns the status the error table gives `code`.
infiniStatus_t nativeFailure(const char *call, VkResult code, const char *what_format, ...) noexcept
    __attribute__((format(printf, 3, 4)));

// ---- the plugin entries ---------------------------------------------------------------------
// Every entry of the list (include/infinirt_plugin.h), by its impl name; vulkan_plugin.cpp
// installs those defined and names the ones left NULL. What each does on Vulkan is said at its
// definition: vulkan_device.cpp, vulkan_stream.cpp, vulkan_event.cpp, vulkan_memory.cpp (device
// memory is one VkBuffer per allocation, and the pointer is its buffer device address),
// vulkan_module.cpp, vulkan_launch.cpp, vulkan_peer.cpp.
INFINIRT_COMMON_DECLARE_ENTRIES();

} // namespace infinirt::vulkan

// The hot entries' guards live beside their definitions (common/entry_guard.hpp).
INFINIRT_COMMON_HOT_ENTRIES(infinirt::vulkan);
