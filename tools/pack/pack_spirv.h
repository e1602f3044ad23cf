// pack_spirv.h - `infinirt-pack entry NAME IN.spv -o OUT.spv`: a Vulkan SPIR-V module with its one
// compute entry point renamed. GLSL names every entry point "main"; infinirt finds a kernel by its
// entry point's name, and a module of several kernels is their renamed modules linked with
// spirv-link (cmake/InfinirtKernels.cmake does both for .comp sources).
#pragma once

namespace infinirt_pack_tool {

// argv: {"infinirt-pack", "entry", NAME, IN, "-o", OUT}. Exit status: 0, 1 (an input that is not
// a SPIR-V module with exactly one compute entry point, or a file error), 2 (usage).
int renameEntryCommand(int argc, char **argv);

} // namespace infinirt_pack_tool
