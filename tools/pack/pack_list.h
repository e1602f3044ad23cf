// pack_list.h - `infinirt-pack list FILE.irtm`: the module file's version, size and one line per
// entry (backend, format, architecture, bytes, build options, name).
#pragma once

namespace infinirt_pack_tool {

// Prints the listing on stdout. Returns 0, or 1 with the reason on stderr when the file cannot be
// read or is no valid module file.
int listModuleFile(const char *path);

} // namespace infinirt_pack_tool
