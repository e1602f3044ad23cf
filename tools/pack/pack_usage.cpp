// pack_usage.cpp - the usage text.
#include "pack_usage.h"

namespace infinirt_pack_tool {

int usage(std::FILE *to) {
    std::fprintf(to,
                 "usage: infinirt-pack -o OUT.irtm [--backend B] [--format F] [--arch A] [--options O] FILE [...]\n"
                 "       infinirt-pack list FILE.irtm\n"
                 "Packs kernel images into one infinirt module file, or lists one. The flags before a FILE apply\n"
                 "to that file only; without them its extension says what it is: .ptx (cuda PTX), .cubin (cuda\n"
                 "CUBIN, architecture from its ELF header), .fatbin (cuda FATBIN), .hsaco (hip HSACO), .cl\n"
                 "(opencl OPENCL_C), .spv (opencl SPIRV), .so (cpu HOST_SO, architecture from its ELF header).\n"
                 "Formats: PTX CUBIN FATBIN HSACO OPENCL_C SPIRV DEVICE_BINARY HOST_SO. See docs/module-file.md.\n");
    return to == stdout ? 0 : 2;
}

} // namespace infinirt_pack_tool
