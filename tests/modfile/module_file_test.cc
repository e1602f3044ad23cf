// Module files (docs/module-file.md): the reader on good, truncated and corrupted bytes, and
// infinirtModuleLoadFile on every device present with the file infinirt_add_kernels built
// (INFINIRT_TEST_MODULE_FILE: cpu .so + OpenCL C, + PTX and cubin where nvcc was found).
#include "infinirt.h"
#include "module_file.h"
#include "modfile_test_util.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

namespace mf = infinirt::modfile;

namespace {

std::vector<unsigned char> readBytes(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class TempFile {
public:
    explicit TempFile(const std::vector<unsigned char> &bytes) {
        char name[] = "/tmp/infinirt-modfile-XXXXXX";
        const int fd = mkstemp(name);
        EXPECT_GE(fd, 0);
        path_ = name;
        if (!bytes.empty()) {
            EXPECT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
        }
        close(fd);
    }
    ~TempFile() { std::remove(path_.c_str()); }
    const char *path() const { return path_.c_str(); }

private:
    std::string path_;
};

using modfile_test::input;

std::vector<unsigned char> sampleFile() {
    std::vector<mf::Input> in;
    in.push_back(input("cpu", INFINIRT_MODULE_FORMAT_HOST_SO, "x86_64", std::string(300, 'x'), "", "a.so"));
    in.push_back(input("opencl", INFINIRT_MODULE_FORMAT_OPENCL_C, "any", "kernel void k() {}", "-DX=1", "k.cl"));
    in.push_back(input("cuda", INFINIRT_MODULE_FORMAT_PTX, "compute_80", ".version 8.0\n.target sm_80\n", "", "k.ptx"));
    std::vector<unsigned char> out;
    std::string why;
    EXPECT_TRUE(mf::write(in, out, why)) << why;
    return out;
}

void put32(std::vector<unsigned char> &b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) {
        b[at + i] = static_cast<unsigned char>(v >> (8 * i));
    }
}
void put64(std::vector<unsigned char> &b, size_t at, uint64_t v) {
    put32(b, at, static_cast<uint32_t>(v));
    put32(b, at + 4, static_cast<uint32_t>(v >> 32));
}
void fixCrc(std::vector<unsigned char> &b) { put32(b, mf::kCrcOffset, mf::fileCrc(b.data(), b.size())); }

// Parses a copy of exactly `size` bytes on the heap (so a sanitizer sees any read past the end).
bool parseCopy(const unsigned char *data, size_t size, mf::File &f, std::string &why, bool crc = true) {
    std::vector<unsigned char> copy(data, data + size);
    return mf::parse(copy.data(), copy.size(), f, why, crc);
}

// ---- the reader ---------------------------------------------------------------------------------

TEST(ModuleFileReader, RoundTrip) {
    const std::vector<unsigned char> b = sampleFile();
    mf::File f;
    std::string why;
    ASSERT_TRUE(mf::parse(b.data(), b.size(), f, why)) << why;
    EXPECT_EQ(f.major, 1);
    EXPECT_EQ(f.minor, 0);
    ASSERT_EQ(f.entries.size(), 3u);
    EXPECT_EQ(f.entries[1].backend, "opencl");
    EXPECT_EQ(f.entries[1].format, static_cast<uint32_t>(INFINIRT_MODULE_FORMAT_OPENCL_C));
    EXPECT_EQ(f.entries[1].arch, "any");
    EXPECT_EQ(f.entries[1].options, "-DX=1");
    EXPECT_EQ(f.entries[1].name, "k.cl");
    EXPECT_EQ(std::string(b.begin() + f.entries[1].offset, b.begin() + f.entries[1].offset + f.entries[1].size),
              "kernel void k() {}");
    for (const mf::Entry &e : f.entries) {
        EXPECT_EQ(e.offset % mf::kAlignment, 0u);
    }
}

TEST(ModuleFileReader, EveryTruncationIsRefused) {
    const std::vector<unsigned char> b = sampleFile();
    for (size_t n = 0; n < b.size(); ++n) {
        mf::File f;
        std::string why;
        EXPECT_FALSE(parseCopy(b.data(), n, f, why)) << "cut at " << n;
        EXPECT_FALSE(why.empty()) << "cut at " << n;
        if (n >= 48) {
            EXPECT_NE(why.find("truncated"), std::string::npos) << why;
        }
    }
    std::vector<unsigned char> longer = b;
    longer.push_back(0);
    mf::File f;
    std::string why;
    EXPECT_FALSE(mf::parse(longer.data(), longer.size(), f, why));
    EXPECT_NE(why.find("header says"), std::string::npos) << why;
}

TEST(ModuleFileReader, EveryFlippedHeaderOrTableByteIsRefused) {
    const std::vector<unsigned char> b = sampleFile();
    const size_t table_end = mf::kHeaderSize + 3 * mf::kEntrySize;
    for (size_t at = 0; at < table_end; ++at) {
        if ((at >= 44 && at < 48) || (at >= 48 && (at - 48) % mf::kEntrySize >= 20 && (at - 48) % mf::kEntrySize < 24) ||
            (at >= 48 && (at - 48) % mf::kEntrySize >= 56)) {
            continue; // reserved fields: ignored by readers, but still covered by the checksum below
        }
        for (unsigned char bit : {0x01, 0x80}) {
            std::vector<unsigned char> c = b;
            c[at] ^= bit;
            mf::File f;
            std::string why;
            EXPECT_FALSE(parseCopy(c.data(), c.size(), f, why)) << "byte " << at << " bit " << int(bit);
            EXPECT_FALSE(why.empty());
        }
    }
    // A flipped byte anywhere (reserved fields and images included) fails the checksum.
    for (size_t at : {size_t{45}, table_end + 3, b.size() - 1}) {
        std::vector<unsigned char> c = b;
        c[at] ^= 0x10;
        mf::File f;
        std::string why;
        EXPECT_FALSE(mf::parse(c.data(), c.size(), f, why));
        EXPECT_NE(why.find("checksum"), std::string::npos) << why;
    }
}

// With the checksum made right again, each field's own check names what is wrong.
TEST(ModuleFileReader, FieldChecksNameTheField) {
    const std::vector<unsigned char> b = sampleFile();
    struct Case {
        size_t at;
        int width;
        uint64_t value;
        const char *says;
    } const cases[] = {
        {0, 4, 0x464c457f, "magic"},
        {8, 4, 2, "version 2.0"},
        {12, 4, 47, "header_size"},
        {12, 4, 1u << 30, "header_size"},
        {16, 4, 5000, "entry_count"},
        {16, 4, 1000, "entry table"},
        {20, 4, 63, "entry_size"},
        {24, 8, 8, "entry table"},
        {24, 8, ~0ull, "entry table"},
        {48 + 0, 8, ~0ull - 4, "entry 0: its image"},
        {48 + 8, 8, 0, "entry 0: its image is 0 bytes"},
        {48 + 8, 8, 1u << 20, "entry 0: its image"},
        {48 + 0, 8, 60, "overlaps the entry table"},
        {48 + 24, 4, 0xfffffff0u, "entry 0: its backend"},
        {48 + 28, 4, 0, "backend is empty"},
        {48 + 28, 4, 64, "over the limit"},
        {48 + 64 + 36, 4, 0, "entry 1: its architecture is empty"},
        {48 + 64 + 44, 4, 70000, "entry 1: its options"},
        {48 + 64 + 52, 4, 5000, "entry 1: its name"},
    };
    for (const Case &c : cases) {
        std::vector<unsigned char> m = b;
        if (c.width == 4) {
            put32(m, c.at, static_cast<uint32_t>(c.value));
        } else {
            put64(m, c.at, c.value);
        }
        fixCrc(m);
        mf::File f;
        std::string why;
        EXPECT_FALSE(parseCopy(m.data(), m.size(), f, why)) << c.says;
        EXPECT_NE(why.find(c.says), std::string::npos) << "wanted \"" << c.says << "\", got: " << why;
    }
    // A NUL inside a string.
    mf::File f;
    std::string why;
    ASSERT_TRUE(mf::parse(b.data(), b.size(), f, why));
    std::vector<unsigned char> m = b;
    const uint32_t backend_at = m[48 + 24] | (m[48 + 25] << 8);
    m[backend_at + 1] = 0;
    fixCrc(m);
    EXPECT_FALSE(mf::parse(m.data(), m.size(), f, why));
    EXPECT_NE(why.find("NUL"), std::string::npos) << why;
}

// A 1.x file with a longer header and longer entries: a 1.0 reader takes what it knows.
TEST(ModuleFileReader, NewerMinorVersionIsRead) {
    const std::vector<unsigned char> b = sampleFile();
    mf::File f0;
    std::string why;
    ASSERT_TRUE(mf::parse(b.data(), b.size(), f0, why));
    // Rebuild: header 64 bytes, entries 80 bytes, the rest (strings, images) moved by the growth.
    const size_t old_table = 48 + 3 * 64, grow = 16 + 3 * 16;
    std::vector<unsigned char> n(b.size() + grow, 0);
    std::memcpy(n.data(), b.data(), 48);
    for (int i = 0; i < 3; ++i) {
        std::memcpy(n.data() + 64 + i * 80, b.data() + 48 + i * 64, 64);
        std::memset(n.data() + 64 + i * 80 + 64, 0xab, 16); // fields a 1.0 reader does not know
    }
    std::memcpy(n.data() + old_table + grow, b.data() + old_table, b.size() - old_table);
    put32(n, 8, 1u | (7u << 16)); // 1.7
    put32(n, 12, 64);
    put32(n, 20, 80);
    put64(n, 24, 64);
    put64(n, 32, n.size());
    for (int i = 0; i < 3; ++i) {
        const size_t e = 64 + i * 80;
        uint64_t off = 0;
        std::memcpy(&off, &n[e], 8);
        put64(n, e, off + grow);
        for (size_t s = 24; s < 56; s += 8) {
            uint32_t so = 0, len = 0;
            std::memcpy(&so, &n[e + s], 4);
            std::memcpy(&len, &n[e + s + 4], 4);
            if (len != 0) {
                put32(n, e + s, static_cast<uint32_t>(so + grow));
            }
        }
    }
    fixCrc(n);
    mf::File f;
    ASSERT_TRUE(mf::parse(n.data(), n.size(), f, why)) << why;
    EXPECT_EQ(f.minor, 7);
    ASSERT_EQ(f.entries.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(f.entries[i].backend, f0.entries[i].backend);
        EXPECT_EQ(f.entries[i].options, f0.entries[i].options);
        EXPECT_EQ(0, std::memcmp(&n[f.entries[i].offset], &b[f0.entries[i].offset], f.entries[i].size));
    }
}

TEST(ModuleFileReader, WriterRefusesBadEntries) {
    std::vector<unsigned char> out;
    std::string why;
    EXPECT_FALSE(mf::write({}, out, why));
    EXPECT_FALSE(mf::write({input("", 1, "any", "x")}, out, why));
    EXPECT_FALSE(mf::write({input("cpu", 8, "", "x")}, out, why));
    EXPECT_FALSE(mf::write({input("cpu", 8, "any", "")}, out, why));
    EXPECT_FALSE(mf::write({input(std::string(64, 'c').c_str(), 8, "any", "x")}, out, why));
    EXPECT_NE(why.find("backend"), std::string::npos) << why;
}

// ---- infinirtModuleLoadFile ---------------------------------------------------------------------

std::vector<std::pair<infiniDevice_t, int>> devices() {
    std::vector<std::pair<infiniDevice_t, int>> out;
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        int n = 0;
        if (infinirtGetDeviceCount(static_cast<infiniDevice_t>(t), &n) == INFINI_STATUS_SUCCESS) {
            for (int i = 0; i < n; ++i) {
                out.emplace_back(static_cast<infiniDevice_t>(t), i);
            }
        }
    }
    return out;
}

std::string backendOf(infiniDevice_t type) {
    int count = 0;
    infinirtGetBackendCount(&count);
    for (int i = 0; i < count; ++i) {
        infinirtBackendInfo_t info{};
        info.struct_size = sizeof info;
        if (infinirtGetBackendInfo(i, &info) == INFINI_STATUS_SUCCESS && info.device_type == type &&
            info.state == INFINIRT_BACKEND_LOADED) {
            return info.name;
        }
    }
    return "";
}

// False for a device whose backend loads no modules at all (its module_load entry is NULL: the
// loader answers NOT_IMPLEMENTED to any image), e.g. vulkan before its kernels.
bool loadsModules(infiniDevice_t type, int id) {
    const char source[] = "x";
    infinirtModuleImage_t image{};
    image.struct_size = sizeof image;
    image.format = INFINIRT_MODULE_FORMAT_OPENCL_C;
    image.data = source;
    image.size = 1;
    infinirtModule_t m = nullptr;
    const infiniStatus_t st = infinirtModuleLoad(&m, type, id, &image, 1, nullptr, 0);
    if (st == INFINI_STATUS_SUCCESS) {
        infinirtModuleUnload(m);
    }
    return st != INFINI_STATUS_NOT_IMPLEMENTED;
}

TEST(ModuleLoadFile, RunsOnEveryDevice) {
    const auto all = devices();
    ASSERT_FALSE(all.empty());
    for (const auto &[type, id] : all) {
        SCOPED_TRACE(backendOf(type) + ":" + std::to_string(id));
        if (!loadsModules(type, id)) {
            std::printf("%s:%d loads no modules (module_load is not implemented): not run there\n",
                        backendOf(type).c_str(), id);
            continue;
        }
        ASSERT_EQ(infinirtSetDevice(type, id), INFINI_STATUS_SUCCESS);
        // The OpenCL entry's own options define SCALE; the caller's define OFFSET (appended).
        const char *options = backendOf(type) == "opencl" ? "-DOFFSET=1.0f" : nullptr;
        char log[8192];
        infinirtModule_t m = nullptr;
        ASSERT_EQ(infinirtModuleLoadFile(&m, type, id, INFINIRT_TEST_MODULE_FILE, options, log, sizeof log),
                  INFINI_STATUS_SUCCESS)
            << infinirtGetLastErrorMessage() << "\n" << log;
        EXPECT_NE(std::string(log).find("chose entry"), std::string::npos) << log;
        EXPECT_NE(std::string(log).find("(" + backendOf(type) + " "), std::string::npos) << log;
        infinirtKernel_t k = nullptr;
        ASSERT_EQ(infinirtModuleGetKernel(&k, m, "scale"), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
        int n = 1000;
        std::vector<float> in(n), out(n, -1.0f);
        for (int i = 0; i < n; ++i) {
            in[i] = static_cast<float>(i);
        }
        void *d_in = nullptr, *d_out = nullptr;
        ASSERT_EQ(infinirtMalloc(&d_in, n * sizeof(float)), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtMalloc(&d_out, n * sizeof(float)), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtMemcpy(d_in, in.data(), n * sizeof(float), INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS);
        infinirtLaunchConfig_t cfg{sizeof cfg, {(static_cast<uint32_t>(n) + 127) / 128, 1, 1}, {128, 1, 1}, 0, 0, {0, 0, 0}};
        infinirtKernelArg_t args[] = {{INFINIRT_KERNEL_ARG_POINTER, sizeof(void *), &d_out},
                                      {INFINIRT_KERNEL_ARG_POINTER, sizeof(void *), &d_in},
                                      {INFINIRT_KERNEL_ARG_VALUE, sizeof n, &n}};
        ASSERT_EQ(infinirtLaunchKernel(k, &cfg, args, 3, nullptr), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
        ASSERT_EQ(infinirtDeviceSynchronize(), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
        ASSERT_EQ(infinirtMemcpy(out.data(), d_out, n * sizeof(float), INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
        for (int i = 0; i < n; ++i) {
            ASSERT_EQ(out[i], 2.0f * i + 1.0f) << "i = " << i;
        }
        EXPECT_EQ(infinirtFree(d_in), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(infinirtFree(d_out), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(infinirtModuleUnload(m), INFINI_STATUS_SUCCESS);
    }
}

// cuda: an exact-architecture cubin over PTX, PTX over a cubin of another architecture, and a
// cubin of another architecture alone refused with the list. Runs where a cuda device is present
// and nvcc built the images (the H200: scripts/gpu-verify.sh).
TEST(ModuleLoadFile, CudaPrefersTheExactCubinThenPtx) {
    const std::vector<unsigned char> b = readBytes(INFINIRT_TEST_MODULE_FILE);
    mf::File f;
    std::string why;
    ASSERT_TRUE(mf::parse(b.data(), b.size(), f, why)) << why;
    int cuda_devices = 0;
    for (const auto &[type, id] : devices()) {
        if (backendOf(type) != "cuda") {
            continue;
        }
        ++cuda_devices;
        infinirtDeviceProperties_t p{};
        p.struct_size = sizeof p;
        ASSERT_EQ(infinirtGetDeviceProperties(type, id, &p), INFINI_STATUS_SUCCESS);
        const mf::Entry *ptx = nullptr, *cubin = nullptr;
        for (const mf::Entry &e : f.entries) {
            if (e.format == INFINIRT_MODULE_FORMAT_PTX) {
                ptx = &e;
            }
            if (e.format == INFINIRT_MODULE_FORMAT_CUBIN && e.arch == p.architecture) {
                cubin = &e;
            }
        }
        ASSERT_NE(ptx, nullptr) << "the module file has no PTX: was it built with nvcc?";
        ASSERT_NE(cubin, nullptr) << "the module file has no cubin for " << p.architecture
                                  << " (set INFINIRT_KERNELS_CUDA_ARCHITECTURES)";
        auto bytesOf = [&](const mf::Entry &e) {
            return std::string(b.begin() + static_cast<std::ptrdiff_t>(e.offset),
                               b.begin() + static_cast<std::ptrdiff_t>(e.offset + e.size));
        };
        auto load = [&](const std::vector<mf::Input> &in, std::string &log_text) {
            std::vector<unsigned char> file_bytes;
            std::string w;
            EXPECT_TRUE(mf::write(in, file_bytes, w)) << w;
            TempFile file(file_bytes);
            char log[8192];
            infinirtModule_t m = nullptr;
            const infiniStatus_t st = infinirtModuleLoadFile(&m, type, id, file.path(), nullptr, log, sizeof log);
            log_text = log;
            if (st == INFINI_STATUS_SUCCESS) {
                infinirtKernel_t k = nullptr;
                EXPECT_EQ(infinirtModuleGetKernel(&k, m, "scale"), INFINI_STATUS_SUCCESS);
                EXPECT_EQ(infinirtModuleUnload(m), INFINI_STATUS_SUCCESS);
            }
            return st;
        };
        std::string log;
        EXPECT_EQ(load({input("cuda", INFINIRT_MODULE_FORMAT_PTX, ptx->arch.c_str(), bytesOf(*ptx)),
                        input("cuda", INFINIRT_MODULE_FORMAT_CUBIN, cubin->arch.c_str(), bytesOf(*cubin))},
                       log),
                  INFINI_STATUS_SUCCESS)
            << log;
        EXPECT_NE(log.find("chose entry 1 (cuda CUBIN " + std::string(p.architecture)), std::string::npos) << log;
        EXPECT_EQ(load({input("cuda", INFINIRT_MODULE_FORMAT_CUBIN, "sm_10", bytesOf(*cubin)),
                        input("cuda", INFINIRT_MODULE_FORMAT_PTX, ptx->arch.c_str(), bytesOf(*ptx))},
                       log),
                  INFINI_STATUS_SUCCESS)
            << log;
        EXPECT_NE(log.find("chose entry 1 (cuda PTX"), std::string::npos) << log;
        EXPECT_EQ(load({input("cuda", INFINIRT_MODULE_FORMAT_CUBIN, "sm_10", bytesOf(*cubin))}, log),
                  INFINI_STATUS_DEVICE_ARCHITECTURE_NOT_SUPPORTED)
            << log;
        EXPECT_NE(log.find("a cubin for sm_10; the device is " + std::string(p.architecture)), std::string::npos)
            << log;
    }
    if (cuda_devices == 0) {
        GTEST_SKIP() << "no cuda device";
    }
}

TEST(ModuleLoadFile, NoImageForTheBackendIsRefusedWithTheList) {
    std::vector<unsigned char> b;
    std::string why;
    ASSERT_TRUE(mf::write({input("nosuch", INFINIRT_MODULE_FORMAT_OPENCL_C, "any", "kernel void k() {}", "", "k.cl"),
                           input("cuda", INFINIRT_MODULE_FORMAT_PTX, "compute_90", ".version 8.0\n.target sm_90\n", "",
                                 "k.ptx")},
                          b, why));
    TempFile file(b);
    for (const auto &[type, id] : devices()) {
        if (backendOf(type) == "cuda") {
            continue; // the PTX may fit there
        }
        char log[4096];
        infinirtModule_t m = reinterpret_cast<infinirtModule_t>(0x1);
        EXPECT_EQ(infinirtModuleLoadFile(&m, type, id, file.path(), nullptr, log, sizeof log),
                  INFINI_STATUS_DEVICE_ARCHITECTURE_NOT_SUPPORTED);
        EXPECT_EQ(m, reinterpret_cast<infinirtModule_t>(0x1));
        const std::string l = log;
        EXPECT_NE(l.find("none of its 2 entries fits"), std::string::npos) << l;
        EXPECT_NE(l.find("entry 0 (nosuch OPENCL_C any"), std::string::npos) << l;
        EXPECT_NE(l.find("entry 1 (cuda PTX compute_90"), std::string::npos) << l;
        EXPECT_NE(l.find("the device's is " + backendOf(type)), std::string::npos) << l;
        EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("nosuch OPENCL_C any"), std::string::npos);
    }
}

TEST(ModuleLoadFile, CpuPicksTheHostsMachine) {
    int n = 0;
    ASSERT_EQ(infinirtGetDeviceCount(INFINI_DEVICE_CPU, &n), INFINI_STATUS_SUCCESS);
    ASSERT_GT(n, 0);
    const std::vector<unsigned char> so = readBytes(INFINIRT_TEST_CPU_SO);
    ASSERT_FALSE(so.empty());
    infinirtDeviceProperties_t p{};
    p.struct_size = sizeof p;
    ASSERT_EQ(infinirtGetDeviceProperties(INFINI_DEVICE_CPU, 0, &p), INFINI_STATUS_SUCCESS);
    std::vector<mf::Input> in;
    in.push_back(input("cpu", INFINIRT_MODULE_FORMAT_HOST_SO, "not-this-machine", "garbage that is no ELF", "", "o.so"));
    in.push_back(input("cpu", INFINIRT_MODULE_FORMAT_HOST_SO, p.architecture, "", "", "mine.so"));
    in.back().bytes = so;
    std::vector<unsigned char> b;
    std::string why;
    ASSERT_TRUE(mf::write(in, b, why)) << why;
    TempFile file(b);
    char log[4096];
    infinirtModule_t m = nullptr;
    ASSERT_EQ(infinirtModuleLoadFile(&m, INFINI_DEVICE_CPU, 0, file.path(), nullptr, log, sizeof log),
              INFINI_STATUS_SUCCESS)
        << infinirtGetLastErrorMessage() << log;
    EXPECT_NE(std::string(log).find("chose entry 1"), std::string::npos) << log;
    EXPECT_EQ(infinirtModuleUnload(m), INFINI_STATUS_SUCCESS);
}

TEST(ModuleLoadFile, BadFilesAreRefused) {
    const std::vector<unsigned char> good = readBytes(INFINIRT_TEST_MODULE_FILE);
    ASSERT_GT(good.size(), 48u);
    char log[256];
    infinirtModule_t m = reinterpret_cast<infinirtModule_t>(0x1);
    EXPECT_EQ(infinirtModuleLoadFile(nullptr, INFINI_DEVICE_CPU, 0, INFINIRT_TEST_MODULE_FILE, nullptr, log, sizeof log),
              INFINI_STATUS_NULL_POINTER);
    EXPECT_EQ(infinirtModuleLoadFile(&m, INFINI_DEVICE_CPU, 0, nullptr, nullptr, log, sizeof log),
              INFINI_STATUS_NULL_POINTER);
    EXPECT_EQ(infinirtModuleLoadFile(&m, INFINI_DEVICE_CPU, 0, "/nonexistent/x.irtm", nullptr, log, sizeof log),
              INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("/nonexistent/x.irtm"), std::string::npos);
    EXPECT_EQ(infinirtModuleLoadFile(&m, INFINI_DEVICE_CPU, 0, "/tmp", nullptr, log, sizeof log), INFINI_STATUS_BAD_PARAM);
    EXPECT_EQ(infinirtModuleLoadFile(&m, INFINI_DEVICE_CPU, 0, INFINIRT_TEST_MODULE_FILE, nullptr, log, sizeof log),
              INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtModuleUnload(m), INFINI_STATUS_SUCCESS);
    m = reinterpret_cast<infinirtModule_t>(0x1);
    // Cut at a spread of lengths (every length is the reader test's job), and flipped bytes.
    for (size_t n = 0; n < good.size(); n += 1 + n / 8) {
        TempFile cut(std::vector<unsigned char>(good.begin(), good.begin() + n));
        EXPECT_EQ(infinirtModuleLoadFile(&m, INFINI_DEVICE_CPU, 0, cut.path(), nullptr, log, sizeof log),
                  INFINI_STATUS_BAD_PARAM)
            << n;
        EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find(cut.path()), std::string::npos);
    }
    for (size_t at : {size_t{0}, size_t{9}, size_t{17}, size_t{33}, size_t{50}, size_t{60}, good.size() / 2}) {
        std::vector<unsigned char> c = good;
        c[at] ^= 0x04;
        TempFile bad(c);
        EXPECT_EQ(infinirtModuleLoadFile(&m, INFINI_DEVICE_CPU, 0, bad.path(), nullptr, log, sizeof log),
                  INFINI_STATUS_BAD_PARAM)
            << at;
    }
    EXPECT_EQ(m, reinterpret_cast<infinirtModule_t>(0x1));
    // A bad device after a good file.
    EXPECT_EQ(infinirtModuleLoadFile(&m, INFINI_DEVICE_CPU, 9999, INFINIRT_TEST_MODULE_FILE, nullptr, log, sizeof log),
              INFINI_STATUS_DEVICE_NOT_FOUND);
}

} // namespace
