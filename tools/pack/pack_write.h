// pack_write.h - `infinirt-pack -o OUT.irtm [--backend B] [--format F] [--arch A] [--options O]
// FILE [...]`: packs the files into one module file (docs/module-file.md). The flags before a FILE
// apply to that file only; without them its extension and its bytes say what it is (pack_infer.h).
#pragma once

namespace infinirt_pack_tool {

// Runs the command on argv[1..argc). Returns the exit status: 0 when OUT was written, 1 when a file
// could not be read or written, 2 for a bad command line or an input that says too little (each
// with a message on stderr). A refused command leaves no OUT behind.
int packCommand(int argc, char **argv);

} // namespace infinirt_pack_tool
