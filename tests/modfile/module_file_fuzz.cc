// Fuzzes the module file reader (infinirt/module_file.cpp) with seeded mutations of a valid file:
// flipped bits, fields overwritten with edge values (0, 1, the file's size and its neighbours,
// all ones, random), cuts and extensions; with the checksum checked and skipped, and through
// infinirtModuleLoadFile with the checksum made right again. Every answer must be a refusal with
// a message or a file whose every entry lies inside the bytes; nothing may read past the end (the
// ASan build sees that: each parse gets a heap copy of exactly its size). Seeded, so a failure
// replays: INFINIRT_FUZZ_SEED=<n>, INFINIRT_FUZZ_STEPS=<n>.
#include "infinirt.h"
#include "module_file.h"
#include "modfile_test_util.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

namespace mf = infinirt::modfile;

namespace {

uint64_t envOr(const char *name, uint64_t fallback) {
    const char *v = std::getenv(name);
    return v != nullptr ? std::strtoull(v, nullptr, 10) : fallback;
}

using modfile_test::input;

std::vector<unsigned char> seedFile() {
    // Backends no plugin has: through the API nothing is ever handed to a plugin.
    std::vector<mf::Input> in;
    in.push_back(input("nosuch", INFINIRT_MODULE_FORMAT_HOST_SO, "x86_64", std::string(200, 'x'), "", "a.so"));
    in.push_back(input("nosuch2", INFINIRT_MODULE_FORMAT_OPENCL_C, "any", "kernel void k() {}", "-DX=1", "k.cl"));
    in.push_back(input("nosuch3", 99, "sm_90", "??", "", ""));
    std::vector<unsigned char> out;
    std::string why;
    EXPECT_TRUE(mf::write(in, out, why)) << why;
    return out;
}

void put(std::vector<unsigned char> &b, size_t at, uint64_t v, int width) {
    for (int i = 0; i < width && at + i < b.size(); ++i) {
        b[at + i] = static_cast<unsigned char>(v >> (8 * i));
    }
}

void checkParsed(const std::vector<unsigned char> &b, bool crc) {
    std::vector<unsigned char> copy(b);
    mf::File f;
    std::string why;
    if (mf::parse(copy.data(), copy.size(), f, why, crc)) {
        EXPECT_EQ(f.size, copy.size());
        for (const mf::Entry &e : f.entries) {
            EXPECT_GT(e.size, 0u);
            EXPECT_LE(e.offset, copy.size());
            EXPECT_LE(e.size, copy.size() - e.offset);
            EXPECT_FALSE(e.backend.empty());
            EXPECT_FALSE(e.arch.empty());
        }
    } else {
        EXPECT_FALSE(why.empty());
    }
}

TEST(FuzzModuleFile, MutatedFiles) {
    const uint64_t seed = envOr("INFINIRT_FUZZ_SEED", 20240610);
    const uint64_t steps = envOr("INFINIRT_FUZZ_STEPS", 20000);
    std::mt19937_64 rng(seed);
    const std::vector<unsigned char> base = seedFile();
    char path[] = "/tmp/infinirt-modfile-fuzz-XXXXXX";
    const int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    int parsed_ok = 0;
    for (uint64_t step = 0; step < steps; ++step) {
        SCOPED_TRACE("INFINIRT_FUZZ_SEED=" + std::to_string(seed) + " step " + std::to_string(step));
        std::vector<unsigned char> b = base;
        const int mutations = 1 + static_cast<int>(rng() % 4);
        for (int k = 0; k < mutations && !b.empty(); ++k) {
            // Mostly the header and table, where the structure is.
            const size_t span = rng() % 4 == 0 ? b.size() : std::min<size_t>(b.size(), 48 + 3 * 64);
            const size_t at = rng() % span;
            const uint64_t edge[] = {0, 1, b.size(), b.size() - 1, b.size() + 1, 48, 64, 0xffffffffull,
                                     ~0ull, ~0ull - 7, rng()};
            switch (rng() % 5) {
            case 0: b[at] ^= static_cast<unsigned char>(1u << (rng() % 8)); break;
            case 1: put(b, at & ~size_t{3}, edge[rng() % 11], 4); break;
            case 2: put(b, at & ~size_t{7}, edge[rng() % 11], 8); break;
            case 3: b.resize(rng() % (b.size() + 1)); break;
            default: b.resize(b.size() + 1 + rng() % 64, static_cast<unsigned char>(rng())); break;
            }
        }
        checkParsed(b, false);
        checkParsed(b, true);
        if (b.size() >= mf::kCrcOffset + 4) {
            put(b, mf::kCrcOffset, mf::fileCrc(b.data(), b.size()), 4);
        }
        std::vector<unsigned char> copy(b);
        mf::File f;
        std::string why;
        parsed_ok += mf::parse(copy.data(), copy.size(), f, why) ? 1 : 0;
        if (step % 16 == 0) {
            FILE *out = std::fopen(path, "wb");
            ASSERT_NE(out, nullptr);
            if (!b.empty()) {
                ASSERT_EQ(std::fwrite(b.data(), 1, b.size(), out), b.size());
            }
            std::fclose(out);
            char log[2048];
            infinirtModule_t m = reinterpret_cast<infinirtModule_t>(0x1);
            const infiniStatus_t st = infinirtModuleLoadFile(&m, INFINI_DEVICE_CPU, 0, path, nullptr, log, sizeof log);
            EXPECT_TRUE(st == INFINI_STATUS_BAD_PARAM || st == INFINI_STATUS_DEVICE_ARCHITECTURE_NOT_SUPPORTED)
                << infinirtGetErrorName(st) << ": " << infinirtGetLastErrorMessage();
            EXPECT_EQ(m, reinterpret_cast<infinirtModule_t>(0x1));
        }
    }
    std::remove(path);
    // The mutations must leave some files readable, or the checks behind the first ones never run.
    EXPECT_GT(parsed_ok, static_cast<int>(steps / 50));
}

} // namespace
