// pack_usage.cpp - the usage text.
#include "pack_usage.h"

namespace infinirt_pack_tool {

int usage(std::FILE *to) {
    std::fprintf(to,
                 "usage: infinirt-pack -o OUT.irtm [--backend B] [--format F] [--arch A] [--options O] FILE [...]\n"
                 "       infinirt-pack list FILE.irtm\n"
                 "       infinirt-pack entry NAME IN.spv -o OUT.spv\n"
                 "Packs kernel images into one infinirt module file, or lists one, or renames the one compute entry\n"
                 "point of a Vulkan SPIR-V module (GLSL calls each \"main\"; link renamed ones with spirv-link).\n"
                 "The flags before a FILE apply to that file only; without them its extension says what it is:\n"
                 ".ptx (cuda PTX), .cubin (cuda CUBIN, architecture from its ELF header), .fatbin (cuda FATBIN),\n"
                 ".hsaco (hip HSACO), .cl (opencl OPENCL_C), .spv (SPIRV: vulkan where it declares the Shader\n"
                 "capability, opencl where Kernel), .so (cpu HOST_SO, architecture from its ELF header).\n"
                 "Formats: PTX CUBIN FATBIN HSACO OPENCL_C SPIRV DEVICE_BINARY HOST_SO. See docs/module-file.md.\n");
    return to == stdout ? 0 : 2;
}

} // namespace infinirt_pack_tool
