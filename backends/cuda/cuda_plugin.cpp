/*
 * cuda_plugin.cpp - the CUDA driver API as a gpu_common vendor table, and the plugin entry.
 *
 * The table is the CUDA column of gpu_vendor_table.h over this folder's entries and
 * converters; every decision is made once, in backends/gpu_common, which builds the plugin table
 * over it.
 */
#include "cuda_backend.h"

#include "../gpu_common/gpu_vendor_table.h"

#include "common/negotiate.hpp"

namespace infinirt::cuda {

namespace {

const gpu::VendorApi kVendor = INFINIRT_GPU_VENDOR_TABLE(INFINIRT_GPU_PICK_CUDA);

} // namespace

} // namespace infinirt::cuda

INFINIRT_COMMON_DEFINE_PLUGIN_ENTRY(infinirt::gpu::pluginTable(infinirt::cuda::kVendor))
