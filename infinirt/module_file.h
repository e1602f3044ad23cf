// The infinirt module file (docs/module-file.md): one file holding a kernel image per backend,
// format and architecture. The reader and writer here depend on nothing but the C++ standard
// library and the format names of backends/common/module_formats.hpp, so the loader
// (infinirtModuleLoadFile), the packer (tools/infinirt-pack) and the reader's fuzz test build the
// same code.
//
// The reader never reads outside the bytes it is given: every offset and length is checked
// against the buffer's size (without overflow) before it is used, and a file that fails a check is
// refused with a message naming the field and the figures.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace infinirt::modfile {

// "\x89IRTM\r\n\x1a": a high byte first (not text), the name, CR LF and ^Z (caught if a text-mode
// transfer rewrote line ends).
constexpr unsigned char kMagic[8] = {0x89, 'I', 'R', 'T', 'M', '\r', '\n', 0x1a};
constexpr uint16_t kVersionMajor = 1;
constexpr uint16_t kVersionMinor = 0;
constexpr uint32_t kHeaderSize = 48;  // version 1.0's header; later 1.x headers may be longer
constexpr uint32_t kEntrySize = 64;   // version 1.0's entry; later 1.x entries may be longer
constexpr uint32_t kCrcOffset = 40;   // the header's CRC-32 field
constexpr uint64_t kAlignment = 64;   // where the writer places each image (readers do not rely on it)
constexpr uint32_t kMaxEntries = 4096;
constexpr uint32_t kMaxEntrySize = 4096;
constexpr uint32_t kMaxShortString = 63;      // backend and architecture
constexpr uint32_t kMaxOptions = 64 * 1024;   // build options
constexpr uint32_t kMaxName = 4096;           // the file name an image came from

struct Entry {
    std::string backend;  // the plugin's name: "cpu", "cuda", "opencl", ...
    std::string arch;     // "sm_90", "x86_64", ... or "any"
    std::string options;  // build options, "" for none
    std::string name;     // the file the image came from ("" if unknown)
    uint32_t format = 0;  // an infinirtModuleFormat_t value; others are kept and listed, never loaded
    uint64_t offset = 0;  // the image's bytes: [offset, offset + size) of the file
    uint64_t size = 0;
};

struct File {
    uint16_t major = 0, minor = 0;
    uint64_t size = 0;
    std::vector<Entry> entries;
};

// Parses `size` bytes. On failure returns false with `why` saying what is wrong (the field, its
// value and the bound it breaks). `check_crc` false skips the checksum (the fuzz test uses it to
// reach the checks behind it).
bool parse(const unsigned char *data, size_t size, File &out, std::string &why, bool check_crc = true);

// An image to write.
struct Input {
    Entry entry; // offset and size are filled by write()
    std::vector<unsigned char> bytes;
};
// The file's bytes for `inputs` (version 1.0). False with `why` when a field breaks a limit.
bool write(const std::vector<Input> &inputs, std::vector<unsigned char> &out, std::string &why);

// CRC-32 (IEEE 802.3, reflected, as zlib's crc32) of `size` bytes, continuing from `crc`.
uint32_t crc32(const unsigned char *data, size_t size, uint32_t crc = 0);
// The file's checksum: CRC-32 of all its bytes with the 4 at kCrcOffset read as zero.
uint32_t fileCrc(const unsigned char *data, size_t size);

// "PTX", "OPENCL_C", ... for an infinirtModuleFormat_t value; "unknown" otherwise.
const char *formatText(uint32_t format);
// The value for a name formatText gives (case-insensitive); 0 when there is none.
uint32_t formatValue(const std::string &name);

} // namespace infinirt::modfile
