#include "module_file.h"

#include "common/module_formats.hpp"

#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace infinirt::modfile {

namespace {

// Header fields (docs/module-file.md).
constexpr size_t kOffMajor = 8, kOffMinor = 10, kOffHeaderSize = 12, kOffCount = 16, kOffEntrySize = 20,
                 kOffTable = 24, kOffFileSize = 32;
// Entry fields.
constexpr size_t kEntOffset = 0, kEntSize = 8, kEntFormat = 16, kEntBackend = 24, kEntArch = 32, kEntOptions = 40,
                 kEntName = 48;

uint16_t rd16(const unsigned char *p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t rd32(const unsigned char *p) {
    return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
           (static_cast<uint32_t>(p[3]) << 24);
}
uint64_t rd64(const unsigned char *p) { return rd32(p) | (static_cast<uint64_t>(rd32(p + 4)) << 32); }
void wr16(unsigned char *p, uint16_t v) {
    p[0] = static_cast<unsigned char>(v);
    p[1] = static_cast<unsigned char>(v >> 8);
}
void wr32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; ++i) {
        p[i] = static_cast<unsigned char>(v >> (8 * i));
    }
}
void wr64(unsigned char *p, uint64_t v) {
    wr32(p, static_cast<uint32_t>(v));
    wr32(p + 4, static_cast<uint32_t>(v >> 32));
}

std::string printf1(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string printf1(const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

// Reads the string reference {u32 offset, u32 length} at `ref` of entry `index`.
bool readString(const unsigned char *data, uint64_t size, uint32_t header_size, const unsigned char *ref,
                size_t index, const char *field, uint32_t max, bool required, std::string &out, std::string &why) {
    const uint32_t off = rd32(ref), len = rd32(ref + 4);
    if (len == 0) {
        if (required) {
            why = printf1("entry %zu: its %s is empty", index, field);
            return false;
        }
        out.clear();
        return true;
    }
    if (len > max) {
        why = printf1("entry %zu: its %s is %u bytes long, over the limit of %u", index, field, len, max);
        return false;
    }
    if (off < header_size || off > size || len > size - off) {
        why = printf1("entry %zu: its %s [%u, +%u) lies outside the file's data (header ends at %u, file has %llu "
                      "bytes)",
                      index, field, off, len, header_size, static_cast<unsigned long long>(size));
        return false;
    }
    const char *s = reinterpret_cast<const char *>(data + off);
    if (std::memchr(s, 0, len) != nullptr) {
        why = printf1("entry %zu: its %s holds a NUL byte", index, field);
        return false;
    }
    out.assign(s, len);
    return true;
}

} // namespace

uint32_t crc32(const unsigned char *data, size_t size, uint32_t crc) {
    static const auto table = [] {
        struct T {
            uint32_t v[256];
        } t{};
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t c = i;
            for (int k = 0; k < 8; ++k) {
                c = (c & 1) != 0 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            }
            t.v[i] = c;
        }
        return t;
    }();
    crc = ~crc;
    for (size_t i = 0; i < size; ++i) {
        crc = table.v[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
    }
    return ~crc;
}

uint32_t fileCrc(const unsigned char *data, size_t size) {
    static const unsigned char kZero[4] = {0, 0, 0, 0};
    if (size < kCrcOffset + 4) {
        return crc32(data, size);
    }
    uint32_t c = crc32(data, kCrcOffset);
    c = crc32(kZero, 4, c);
    return crc32(data + kCrcOffset + 4, size - kCrcOffset - 4, c);
}

const char *formatText(uint32_t format) {
    return common::moduleFormatName(format);
}

uint32_t formatValue(const std::string &name) {
    for (uint32_t f = 1; f < common::kModuleFormatCount; ++f) {
        const char *n = common::kModuleFormatNames[f];
        if (name.size() == std::strlen(n)) {
            bool same = true;
            for (size_t i = 0; i < name.size() && same; ++i) {
                same = std::toupper(static_cast<unsigned char>(name[i])) == n[i];
            }
            if (same) {
                return f;
            }
        }
    }
    return 0;
}

bool parse(const unsigned char *data, size_t size, File &out, std::string &why, bool check_crc) {
    out = File{};
    if (size < sizeof kMagic || std::memcmp(data, kMagic, sizeof kMagic) != 0) {
        why = size < sizeof kMagic
                  ? printf1("not an infinirt module file: %zu bytes, shorter than the 8-byte magic", size)
                  : std::string("not an infinirt module file: its first 8 bytes are not the magic \\x89IRTM\\r\\n\\x1a");
        return false;
    }
    if (size < kOffMinor + 2) {
        why = printf1("truncated: %zu bytes, cut short inside the header's version field", size);
        return false;
    }
    out.major = rd16(data + kOffMajor);
    out.minor = rd16(data + kOffMinor);
    if (out.major != kVersionMajor) {
        why = printf1("version %u.%u; this infinirt reads version %u.x files", out.major, out.minor, kVersionMajor);
        return false;
    }
    if (size < kHeaderSize) {
        why = printf1("truncated: %zu bytes, shorter than the %u-byte header", size, kHeaderSize);
        return false;
    }
    const uint32_t header_size = rd32(data + kOffHeaderSize);
    const uint32_t count = rd32(data + kOffCount);
    const uint32_t entry_size = rd32(data + kOffEntrySize);
    const uint64_t table = rd64(data + kOffTable);
    const uint64_t file_size = rd64(data + kOffFileSize);
    if (file_size != size) {
        why = file_size > size ? printf1("truncated: the header says %llu bytes, the file has %zu",
                                         static_cast<unsigned long long>(file_size), size)
                               : printf1("%zu bytes, but the header says %llu (bytes appended or a corrupt header)",
                                         size, static_cast<unsigned long long>(file_size));
        return false;
    }
    out.size = file_size;
    if (header_size < kHeaderSize || header_size > size) {
        why = printf1("header_size %u is outside [%u, %zu] (the file's size)", header_size, kHeaderSize, size);
        return false;
    }
    if (entry_size < kEntrySize || entry_size > kMaxEntrySize) {
        why = printf1("entry_size %u is outside [%u, %u]", entry_size, kEntrySize, kMaxEntrySize);
        return false;
    }
    if (count > kMaxEntries) {
        why = printf1("entry_count %u is over the limit of %u", count, kMaxEntries);
        return false;
    }
    const uint64_t table_bytes = static_cast<uint64_t>(count) * entry_size; // <= 2^24: no overflow
    if (table < header_size || table > size || table_bytes > size - table) {
        why = printf1("the entry table [%llu, +%llu) lies outside [%u, %zu) (after the header, inside the file)",
                      static_cast<unsigned long long>(table), static_cast<unsigned long long>(table_bytes),
                      header_size, size);
        return false;
    }
    const uint64_t table_end = table + table_bytes;
    if (check_crc) {
        const uint32_t stored = rd32(data + kCrcOffset), actual = fileCrc(data, size);
        if (stored != actual) {
            why = printf1("checksum mismatch: the header says 0x%08x, the bytes give 0x%08x (the file is corrupt)",
                          stored, actual);
            return false;
        }
    }
    out.entries.resize(count);
    for (uint32_t i = 0; i < count; ++i) {
        const unsigned char *e = data + table + static_cast<uint64_t>(i) * entry_size;
        Entry &r = out.entries[i];
        r.offset = rd64(e + kEntOffset);
        r.size = rd64(e + kEntSize);
        r.format = rd32(e + kEntFormat);
        if (r.size == 0) {
            why = printf1("entry %u: its image is 0 bytes", i);
            return false;
        }
        if (r.offset < header_size || r.offset > size || r.size > size - r.offset) {
            why = printf1("entry %u: its image [%llu, +%llu) lies outside the file's data [%u, %zu)", i,
                          static_cast<unsigned long long>(r.offset), static_cast<unsigned long long>(r.size),
                          header_size, size);
            return false;
        }
        if (r.offset < table_end && table < r.offset + r.size) {
            why = printf1("entry %u: its image [%llu, +%llu) overlaps the entry table [%llu, %llu)", i,
                          static_cast<unsigned long long>(r.offset), static_cast<unsigned long long>(r.size),
                          static_cast<unsigned long long>(table), static_cast<unsigned long long>(table_end));
            return false;
        }
        if (!readString(data, size, header_size, e + kEntBackend, i, "backend", kMaxShortString, true, r.backend, why) ||
            !readString(data, size, header_size, e + kEntArch, i, "architecture", kMaxShortString, true, r.arch, why) ||
            !readString(data, size, header_size, e + kEntOptions, i, "options", kMaxOptions, false, r.options, why) ||
            !readString(data, size, header_size, e + kEntName, i, "name", kMaxName, false, r.name, why)) {
            return false;
        }
    }
    return true;
}

bool write(const std::vector<Input> &inputs, std::vector<unsigned char> &out, std::string &why) {
    if (inputs.empty() || inputs.size() > kMaxEntries) {
        why = printf1("%zu images; a module file holds 1 to %u", inputs.size(), kMaxEntries);
        return false;
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
        const Entry &e = inputs[i].entry;
        struct {
            const std::string *s;
            const char *what;
            uint32_t max;
            bool required;
        } const fields[] = {{&e.backend, "backend", kMaxShortString, true},
                            {&e.arch, "architecture", kMaxShortString, true},
                            {&e.options, "options", kMaxOptions, false},
                            {&e.name, "name", kMaxName, false}};
        for (const auto &f : fields) {
            if ((f.required && f.s->empty()) || f.s->size() > f.max || f.s->find('\0') != std::string::npos) {
                why = printf1("image %zu (%s): its %s must be %s at most %u bytes without NUL", i, e.name.c_str(),
                              f.what, f.required ? "1 to" : "", f.max);
                return false;
            }
        }
        if (inputs[i].bytes.empty()) {
            why = printf1("image %zu (%s) is empty", i, e.name.c_str());
            return false;
        }
    }
    const uint64_t table = kHeaderSize;
    uint64_t pos = table + static_cast<uint64_t>(inputs.size()) * kEntrySize;
    // Strings after the table, each followed by a NUL (not counted) for people reading a dump.
    std::vector<unsigned char> strings;
    auto place = [&](const std::string &s, unsigned char *ref) {
        wr32(ref, s.empty() ? 0 : static_cast<uint32_t>(pos + strings.size()));
        wr32(ref + 4, static_cast<uint32_t>(s.size()));
        strings.insert(strings.end(), s.begin(), s.end());
        if (!s.empty()) {
            strings.push_back(0);
        }
    };
    std::vector<unsigned char> entries(inputs.size() * kEntrySize, 0);
    for (size_t i = 0; i < inputs.size(); ++i) {
        unsigned char *e = entries.data() + i * kEntrySize;
        const Entry &in = inputs[i].entry;
        wr32(e + kEntFormat, in.format);
        place(in.backend, e + kEntBackend);
        place(in.arch, e + kEntArch);
        place(in.options, e + kEntOptions);
        place(in.name, e + kEntName);
    }
    pos += strings.size();
    if (pos > UINT32_MAX) {
        why = "the strings do not fit in the first 4 GiB";
        return false;
    }
    std::vector<uint64_t> offsets(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
        pos = (pos + kAlignment - 1) / kAlignment * kAlignment;
        offsets[i] = pos;
        wr64(entries.data() + i * kEntrySize + kEntOffset, pos);
        wr64(entries.data() + i * kEntrySize + kEntSize, inputs[i].bytes.size());
        pos += inputs[i].bytes.size();
    }
    out.assign(pos, 0);
    std::memcpy(out.data(), kMagic, sizeof kMagic);
    wr16(out.data() + kOffMajor, kVersionMajor);
    wr16(out.data() + kOffMinor, kVersionMinor);
    wr32(out.data() + kOffHeaderSize, kHeaderSize);
    wr32(out.data() + kOffCount, static_cast<uint32_t>(inputs.size()));
    wr32(out.data() + kOffEntrySize, kEntrySize);
    wr64(out.data() + kOffTable, table);
    wr64(out.data() + kOffFileSize, pos);
    std::memcpy(out.data() + table, entries.data(), entries.size());
    std::memcpy(out.data() + table + entries.size(), strings.data(), strings.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
        std::memcpy(out.data() + offsets[i], inputs[i].bytes.data(), inputs[i].bytes.size());
    }
    wr32(out.data() + kCrcOffset, fileCrc(out.data(), out.size()));
    return true;
}

} // namespace infinirt::modfile
