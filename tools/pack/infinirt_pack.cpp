// infinirt-pack: writes and lists infinirt module files (docs/module-file.md).
//
//   infinirt-pack -o OUT.irtm [--backend B] [--format F] [--arch A] [--options O] FILE [...]
//   infinirt-pack list FILE.irtm
//   infinirt-pack entry NAME IN.spv -o OUT.spv
//
// The flags before a FILE apply to that file only; without them the extension says what it is.
#include "pack_list.h"
#include "pack_spirv.h"
#include "pack_usage.h"
#include "pack_write.h"

#include <cstdio>
#include <cstring>

using namespace infinirt_pack_tool;

int main(int argc, char **argv) {
    if (argc >= 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
        return usage(stdout);
    }
    if (argc == 3 && std::strcmp(argv[1], "list") == 0) {
        return listModuleFile(argv[2]);
    }
    if (argc >= 2 && std::strcmp(argv[1], "list") == 0) {
        std::fprintf(stderr, "infinirt-pack: list takes one file\n");
        return usage(stderr);
    }
    if (argc >= 2 && std::strcmp(argv[1], "entry") == 0) {
        return renameEntryCommand(argc, argv);
    }
    return packCommand(argc, argv);
}
