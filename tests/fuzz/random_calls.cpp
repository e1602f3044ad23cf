// Drives random sequences of C ABI calls with a mix of valid and invalid arguments (live,
// destroyed, garbage and wrong-kind handles; live, freed, interior, foreign and NULL pointers;
// sizes 0, small and huge; invalid enums) and checks that every call returns a documented status,
// leaves outputs untouched on failure and never crashes. Seeded, so a failure replays exactly:
// INFINIRT_FUZZ_SEED=<n>, INFINIRT_FUZZ_STEPS=<n>.
#include "infinirt.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <vector>

namespace {

uint64_t envOr(const char *name, uint64_t fallback) {
    const char *v = std::getenv(name);
    return v != nullptr ? std::strtoull(v, nullptr, 10) : fallback;
}

const std::set<infiniStatus_t> kDocumented = {
    INFINI_STATUS_SUCCESS,       INFINI_STATUS_BAD_PARAM,      INFINI_STATUS_NULL_POINTER,
    INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, INFINI_STATUS_DEVICE_NOT_FOUND, INFINI_STATUS_OUT_OF_MEMORY,
    INFINI_STATUS_INVALID_HANDLE, INFINI_STATUS_NOT_READY,     INFINI_STATUS_NOT_IMPLEMENTED,
};

void *const kSentinel = reinterpret_cast<void *>(uintptr_t{0x5e5e5e5e});

class RandomCalls {
public:
    explicit RandomCalls(uint64_t seed) : rng_(seed) {}

    void step() {
        switch (pick(14)) {
        case 0: {
            void *p = kSentinel;
            const size_t size = pickSize();
            check("Malloc", infinirtMalloc(coin() ? &p : nullptr, size), p);
            if (p != kSentinel) {
                live_.push_back(p);
                sizes_.push_back(size);
            }
            break;
        }
        case 1: {
            void *p = pickPointer();
            quiesce(); // copies queued into the block on any stream of any device have finished
            const infiniStatus_t st = infinirtFree(p);
            check("Free", st, nullptr);
            forget(p, st);
            break;
        }
        case 2: {
            void *s = kSentinel;
            check("StreamCreate", infinirtStreamCreate(coin() ? &s : nullptr), s);
            if (s != kSentinel) {
                streams_.push_back(s);
            }
            break;
        }
        case 3: {
            void *s = pickHandle(streams_, dead_streams_);
            const infiniStatus_t st = infinirtStreamDestroy(s);
            check("StreamDestroy", st, nullptr);
            retire(streams_, dead_streams_, s, st);
            break;
        }
        case 4: {
            void *e = kSentinel;
            const uint32_t flags = pick(4) == 0 ? 0x80u : static_cast<uint32_t>(pick(4));
            check("EventCreate", infinirtEventCreateWithFlags(coin() ? &e : nullptr, flags), e);
            if (e != kSentinel) {
                events_.push_back(e);
            }
            break;
        }
        case 5: {
            void *e = pickHandle(events_, dead_events_);
            const infiniStatus_t st = infinirtEventDestroy(e);
            check("EventDestroy", st, nullptr);
            retire(events_, dead_events_, e, st);
            break;
        }
        case 6:
            check("EventRecord", infinirtEventRecord(pickHandle(events_, dead_events_), pickStreamArg()), nullptr);
            break;
        case 7: {
            // Filled with a byte pattern no valid status has; compared as bytes, never loaded.
            infinirtEventStatus_t out;
            unsigned char pattern[sizeof out];
            std::memset(pattern, 0x77, sizeof pattern);
            std::memcpy(&out, pattern, sizeof out);
            const infiniStatus_t st =
                infinirtEventQuery(pickHandle(events_, dead_events_), coin() ? &out : nullptr);
            check("EventQuery", st, nullptr);
            if (st != INFINI_STATUS_SUCCESS) {
                EXPECT_EQ(std::memcmp(&out, pattern, sizeof out), 0) << "EventQuery wrote its output on failure";
            }
            break;
        }
        case 8:
            check("StreamWaitEvent", infinirtStreamWaitEvent(pickStreamArg(), pickHandle(events_, dead_events_)),
                  nullptr);
            break;
        case 9: {
            // Copies only between buffers this driver owns and sizes that fit, or deliberately bad
            // arguments that the loader must refuse before touching memory.
            const int kind = pick(6);
            void *dst = nullptr;
            void *src = nullptr;
            size_t size = 0;
            if (!live_.empty() && coin()) {
                const size_t i = pick(live_.size());
                dst = live_[i];
                src = host_.data();
                size = std::min(sizes_[i], host_.size());
            }
            check("MemcpyAsync",
                  infinirtMemcpyAsync(dst, src, size, static_cast<infinirtMemcpyKind_t>(kind == 5 ? 99 : kind % 5),
                                      pickStreamArg()),
                  nullptr);
            break;
        }
        case 10:
            check("StreamSynchronize", infinirtStreamSynchronize(pickStreamArg()), nullptr);
            break;
        case 11: {
            const infiniStatus_t st = infinirtStreamQuery(pickStreamArg());
            check("StreamQuery", st, nullptr);
            break;
        }
        case 12: {
            const int type = pick(3) == 0 ? static_cast<int>(pick(40)) - 5 : INFINI_DEVICE_CPU;
            const int id = pick(3) == 0 ? static_cast<int>(pick(10)) - 3 : 0;
            infiniDevice_t before_t;
            int before_id;
            ASSERT_EQ(infinirtGetDevice(&before_t, &before_id), INFINI_STATUS_SUCCESS);
            const infiniStatus_t st = infinirtSetDevice(static_cast<infiniDevice_t>(type), id);
            check("SetDevice", st, nullptr);
            if (st != INFINI_STATUS_SUCCESS) {
                infiniDevice_t after_t;
                int after_id;
                ASSERT_EQ(infinirtGetDevice(&after_t, &after_id), INFINI_STATUS_SUCCESS);
                EXPECT_EQ(after_t, before_t);
                EXPECT_EQ(after_id, before_id);
            }
            break;
        }
        default: {
            infinirtPointerAttributes_t a{};
            a.struct_size = coin() ? sizeof a : 0;
            check("PointerGetAttributes", infinirtPointerGetAttributes(&a, pickPointer()), nullptr);
            break;
        }
        }
    }

    void cleanUp() {
        for (void *s : streams_) {
            EXPECT_EQ(infinirtStreamDestroy(s), INFINI_STATUS_SUCCESS);
        }
        for (void *e : events_) {
            EXPECT_EQ(infinirtEventDestroy(e), INFINI_STATUS_SUCCESS);
        }
        for (void *p : live_) {
            EXPECT_EQ(infinirtFree(p), INFINI_STATUS_SUCCESS);
        }
    }

private:
    // Waits for every stream this driver made and every device's default stream.
    void quiesce() {
        for (void *s : streams_) {
            ASSERT_EQ(infinirtStreamSynchronize(s), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
        }
        infiniDevice_t t;
        int id;
        ASSERT_EQ(infinirtGetDevice(&t, &id), INFINI_STATUS_SUCCESS);
        int n = 0;
        ASSERT_EQ(infinirtGetDeviceCount(INFINI_DEVICE_CPU, &n), INFINI_STATUS_SUCCESS);
        for (int d = 0; d < n; ++d) {
            ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_CPU, d), INFINI_STATUS_SUCCESS);
            ASSERT_EQ(infinirtDeviceSynchronize(), INFINI_STATUS_SUCCESS);
        }
        ASSERT_EQ(infinirtSetDevice(t, id), INFINI_STATUS_SUCCESS);
    }

    size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
    bool coin() { return pick(8) != 0; } // mostly valid

    size_t pickSize() {
        switch (pick(6)) {
        case 0: return 0;
        case 1: return SIZE_MAX - pick(64);
        case 2: return SIZE_MAX / 2;
        default: return 1 + pick(8192);
        }
    }

    void *pickPointer() {
        switch (pick(6)) {
        case 0: return nullptr;
        case 1: return freed_.empty() ? host_.data() : freed_[pick(freed_.size())];
        case 2: return live_.empty() ? nullptr : static_cast<char *>(live_[pick(live_.size())]) + 1;
        case 3: return host_.data();
        default: return live_.empty() ? nullptr : live_[pick(live_.size())];
        }
    }

    void *pickHandle(const std::vector<void *> &live, const std::vector<void *> &dead) {
        switch (pick(8)) {
        case 0: return nullptr;
        case 1: return reinterpret_cast<void *>(static_cast<uintptr_t>(rng_()));
        case 2: return dead.empty() ? nullptr : dead[pick(dead.size())];
        case 3: return streams_.empty() || &live == &streams_ ? (events_.empty() ? nullptr : events_[0]) : streams_[0];
        default: return live.empty() ? nullptr : live[pick(live.size())];
        }
    }

    void *pickStreamArg() { return pick(4) == 0 ? nullptr : pickHandle(streams_, dead_streams_); }

    void forget(void *p, infiniStatus_t st) {
        for (size_t i = 0; i < live_.size(); ++i) {
            if (live_[i] == p) {
                EXPECT_EQ(st, INFINI_STATUS_SUCCESS) << "Free of a live allocation failed: " << infinirtGetLastErrorMessage();
                live_.erase(live_.begin() + static_cast<long>(i));
                sizes_.erase(sizes_.begin() + static_cast<long>(i));
                freed_.push_back(p);
                return;
            }
        }
        if (p != nullptr) {
            EXPECT_NE(st, INFINI_STATUS_SUCCESS) << "Free of a pointer that is not live succeeded";
        }
    }

    void retire(std::vector<void *> &live, std::vector<void *> &dead, void *h, infiniStatus_t st) {
        for (size_t i = 0; i < live.size(); ++i) {
            if (live[i] == h) {
                EXPECT_EQ(st, INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
                live.erase(live.begin() + static_cast<long>(i));
                dead.push_back(h);
                return;
            }
        }
        EXPECT_NE(st, INFINI_STATUS_SUCCESS) << "destroying a handle that is not live succeeded";
    }

    void check(const char *call, infiniStatus_t st, void *out) {
        ++calls_;
        EXPECT_TRUE(kDocumented.count(st)) << call << " returned undocumented " << infinirtGetErrorName(st);
        if (st != INFINI_STATUS_SUCCESS) {
            EXPECT_STRNE(infinirtGetLastErrorMessage(), "") << call << " failed without a message";
            EXPECT_EQ(out, out == nullptr ? nullptr : kSentinel) << call << " wrote its output on failure";
        }
    }

    std::mt19937_64 rng_;
    std::vector<char> host_ = std::vector<char>(4096);
    std::vector<void *> live_, freed_, streams_, dead_streams_, events_, dead_events_;
    std::vector<size_t> sizes_;
    size_t calls_ = 0;
};

TEST(RandomCalls, EveryCallReturnsADocumentedStatusAndNeverCrashes) {
    const uint64_t seed = envOr("INFINIRT_FUZZ_SEED", 20261122);
    const uint64_t steps = envOr("INFINIRT_FUZZ_STEPS", 20000);
    ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_CPU, 0), INFINI_STATUS_SUCCESS);
    RandomCalls driver(seed);
    for (uint64_t i = 0; i < steps && !::testing::Test::HasFailure(); ++i) {
        driver.step();
    }
    driver.cleanUp();
    EXPECT_FALSE(::testing::Test::HasFailure()) << "replay with INFINIRT_FUZZ_SEED=" << seed;
}

} // namespace
