# Writes a C++ source defining the bytes of a file as an array, so a test carries its device code:
#   cmake -DINPUT=<file> -DOUTPUT=<file.cpp> -DSYMBOL=<name> -P embed_file.cmake
# defines `extern const unsigned char <name>[]` (16-byte aligned) and `extern const size_t <name>_size`.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE "${OUTPUT}"
  "// Generated from ${INPUT} by tests/cuda/embed_file.cmake.\n#include <cstddef>\n"
  "alignas(16) extern const unsigned char ${SYMBOL}[] = {${bytes}};\n"
  "extern const size_t ${SYMBOL}_size = ${size};\n")
