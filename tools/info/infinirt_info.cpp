// infinirt-info: lists the backend plugins (loaded or not, and why) and every device with its
// properties (kind, clocks, cache, launch limits, graphs native or emulated). `--json` prints the
// same as one JSON document (schema in README.md, "schema_version" 1): a property the backend
// does not know is left out, never given a placeholder. `--version` prints the version.
#include "info_inventory.h"
#include "info_json.h"
#include "info_text.h"

#include <cstdio>
#include <cstring>

#ifndef INFINIRT_INFO_VERSION
#error "tools/CMakeLists.txt defines INFINIRT_INFO_VERSION"
#endif

using namespace infinirt_info_tool;

int main(int argc, char **argv) {
    bool as_json = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--json") == 0) {
            as_json = true;
        } else if (std::strcmp(argv[i], "--version") == 0) {
            std::printf("infinirt-info %s\n", INFINIRT_INFO_VERSION);
            return 0;
        } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            std::printf("usage: infinirt-info [--json] [--version]\n"
                        "Lists infinirt backend plugins (and why any did not load) and all devices with their\n"
                        "kind, memory, clocks, cache and launch limits. --json: one JSON document (README.md).\n");
            return 0;
        } else {
            std::fprintf(stderr, "infinirt-info: unknown argument %s (try --help)\n", argv[i]);
            return 2;
        }
    }
    Inventory inventory;
    if (gatherInventory(&inventory) != 0) {
        return 1;
    }
    if (as_json) {
        printJson(inventory, INFINIRT_INFO_VERSION);
    } else {
        printText(inventory);
    }
    return 0;
}
