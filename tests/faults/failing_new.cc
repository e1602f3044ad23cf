// A replacement of every global operator new of the test program (and so of libinfinirt, its
// plugins and libstdc++, which bind to the program's definitions): once armed, the allocation
// numbered `fail_at` (counted from the arming, 1-based, in every thread) fails, as does every one
// after it when `sticky`; a throwing form throws std::bad_alloc, a nothrow form returns nullptr.
#include "failing_new.h"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long> g_count{0};
std::atomic<long> g_fail_at{0}; // 0: disarmed
std::atomic<bool> g_sticky{false};
std::atomic<bool> g_failed{false};

bool shouldFail() {
    const long at = g_fail_at.load(std::memory_order_relaxed);
    if (at == 0) {
        return false;
    }
    const long n = g_count.fetch_add(1, std::memory_order_relaxed) + 1;
    if (n == at || (n > at && g_sticky.load(std::memory_order_relaxed))) {
        g_failed.store(true, std::memory_order_relaxed);
        return true;
    }
    return false;
}

void *allocate(std::size_t size, std::size_t align) {
    if (shouldFail()) {
        return nullptr;
    }
    if (size == 0) {
        size = 1;
    }
    if (align <= alignof(std::max_align_t)) {
        return std::malloc(size);
    }
    return std::aligned_alloc(align, (size + align - 1) / align * align);
}

void *allocateOrThrow(std::size_t size, std::size_t align) {
    void *p = allocate(size, align);
    if (p == nullptr) {
        throw std::bad_alloc();
    }
    return p;
}
} // namespace

namespace failing_new {
void arm(long fail_at, bool sticky) {
    g_count.store(0, std::memory_order_relaxed);
    g_failed.store(false, std::memory_order_relaxed);
    g_sticky.store(sticky, std::memory_order_relaxed);
    g_fail_at.store(fail_at, std::memory_order_relaxed);
}
void disarm() { g_fail_at.store(0, std::memory_order_relaxed); }
long allocations() { return g_count.load(std::memory_order_relaxed); }
bool failedOne() { return g_failed.load(std::memory_order_relaxed); }
} // namespace failing_new

[[gnu::visibility("default")]] void *operator new(std::size_t n) { return allocateOrThrow(n, 0); }
[[gnu::visibility("default")]] void *operator new[](std::size_t n) { return allocateOrThrow(n, 0); }
[[gnu::visibility("default")]] void *operator new(std::size_t n, std::align_val_t a) { return allocateOrThrow(n, static_cast<std::size_t>(a)); }
[[gnu::visibility("default")]] void *operator new[](std::size_t n, std::align_val_t a) { return allocateOrThrow(n, static_cast<std::size_t>(a)); }
[[gnu::visibility("default")]] void *operator new(std::size_t n, const std::nothrow_t &) noexcept { return allocate(n, 0); }
[[gnu::visibility("default")]] void *operator new[](std::size_t n, const std::nothrow_t &) noexcept { return allocate(n, 0); }
[[gnu::visibility("default")]] void *operator new(std::size_t n, std::align_val_t a, const std::nothrow_t &) noexcept {
    return allocate(n, static_cast<std::size_t>(a));
}
[[gnu::visibility("default")]] void *operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t &) noexcept {
    return allocate(n, static_cast<std::size_t>(a));
}
[[gnu::visibility("default")]] void operator delete(void *p) noexcept { std::free(p); }
[[gnu::visibility("default")]] void operator delete[](void *p) noexcept { std::free(p); }
[[gnu::visibility("default")]] void operator delete(void *p, std::size_t) noexcept { std::free(p); }
[[gnu::visibility("default")]] void operator delete[](void *p, std::size_t) noexcept { std::free(p); }
[[gnu::visibility("default")]] void operator delete(void *p, std::align_val_t) noexcept { std::free(p); }
[[gnu::visibility("default")]] void operator delete[](void *p, std::align_val_t) noexcept { std::free(p); }
[[gnu::visibility("default")]] void operator delete(void *p, std::size_t, std::align_val_t) noexcept { std::free(p); }
[[gnu::visibility("default")]] void operator delete[](void *p, std::size_t, std::align_val_t) noexcept { std::free(p); }
[[gnu::visibility("default")]] void operator delete(void *p, const std::nothrow_t &) noexcept { std::free(p); }
[[gnu::visibility("default")]] void operator delete[](void *p, const std::nothrow_t &) noexcept { std::free(p); }
[[gnu::visibility("default")]] void operator delete(void *p, std::align_val_t, const std::nothrow_t &) noexcept { std::free(p); }
[[gnu::visibility("default")]] void operator delete[](void *p, std::align_val_t, const std::nothrow_t &) noexcept { std::free(p); }
