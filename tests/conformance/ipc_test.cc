// Memory and events shared between processes: a handle exported here is opened by a process
// started with posix_spawn (this binary again, running IpcChild.Run), and one exported there is
// opened here; opening twice gives the same pointer; opened memory is infinirt memory; every
// refusal of infinirt.h. Both kinds of memory a backend may share are tried: infinirtMalloc
// memory (cuda must share it) and a mapping of a physical allocation made with
// INFINIRT_MEM_CREATE_SHAREABLE (cpu and cuda must share it). Events where the backend shares
// them (cuda; cpu answers NOT_IMPLEMENTED with the reason). A kind the backend does not share
// (NOT_IMPLEMENTED with a reason) is skipped.
#include "device_test.h"
#include "resources.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <string>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace infinirt_test {
namespace {

constexpr size_t kBytes = 1 << 20; // rounded up to the granularity
constexpr size_t kOffset = 4096 + 100; // exported pointers are interior ones
// The child's end of the pipes: it writes its handles on kChildOut and waits for kChildIn to close.
constexpr int kChildOut = 100;
constexpr int kChildIn = 101;

unsigned char Pattern(size_t i, unsigned seed) { return static_cast<unsigned char>(i * seed + seed / 2); }

template <class Handle>
std::string ToHex(const Handle &h) {
    std::string s;
    char two[3];
    for (unsigned char b : h.bytes) {
        std::snprintf(two, sizeof two, "%02x", b);
        s += two;
    }
    return s;
}

template <class Handle>
bool FromHex(const std::string &s, Handle &h) {
    if (s.size() != 2 * sizeof h.bytes) {
        return false;
    }
    for (size_t i = 0; i < sizeof h.bytes; ++i) {
        unsigned v = 0;
        if (std::sscanf(s.c_str() + 2 * i, "%2x", &v) != 1) {
            return false;
        }
        h.bytes[i] = static_cast<unsigned char>(v);
    }
    return true;
}

// The two kinds of device memory a backend may export.
enum class Kind { kMalloc, kMapping };
const char *KindName(Kind k) { return k == Kind::kMalloc ? "malloc" : "mapping"; }

// Device memory of the current device of one kind, exported. Released when the scope ends.
class Shareable {
public:
    Shareable() = default;
    Shareable(const Shareable &) = delete;
    Shareable &operator=(const Shareable &) = delete;
    ~Shareable() { Release(); }

    // Makes it and its handle (of the interior pointer at kOffset); NOT_IMPLEMENTED (WhyNot()
    // says why) where the backend does not share memory of that kind.
    infiniStatus_t Make(infiniDevice_t type, int id, Kind kind, infinirtIpcMemHandle_t &handle) {
        infiniStatus_t st = kind == Kind::kMalloc ? Malloc() : Map(type, id);
        if (st == INFINI_STATUS_SUCCESS) {
            st = infinirtIpcGetMemHandle(&handle, Interior());
        }
        if (st == INFINI_STATUS_NOT_IMPLEMENTED) {
            why_ = infinirtGetLastErrorMessage();
        }
        return st;
    }
    // Why the backend does not share the kind asked for, after Make answered NOT_IMPLEMENTED.
    const std::string &WhyNot() const { return why_; }
    void Release() {
        if (malloced_) {
            infinirtFree(ptr_);
        }
        if (mapped_) {
            infinirtMemUnmap(ptr_, size_);
        }
        if (mem_ != nullptr) {
            infinirtMemRelease(mem_);
        }
        if (reserved_) {
            infinirtMemAddressFree(ptr_, size_);
        }
        malloced_ = mapped_ = reserved_ = false;
        mem_ = nullptr;
        ptr_ = nullptr;
    }
    unsigned char *Base() const { return static_cast<unsigned char *>(ptr_); }
    unsigned char *Interior() const { return Base() + kOffset; }
    size_t Size() const { return size_; }

private:
    infiniStatus_t Malloc() {
        size_ = kBytes;
        const infiniStatus_t st = infinirtMalloc(&ptr_, size_);
        malloced_ = st == INFINI_STATUS_SUCCESS;
        return st;
    }
    infiniStatus_t Map(infiniDevice_t type, int id) {
        size_t g = 0;
        infiniStatus_t st = infinirtMemGetAllocationGranularity(&g, type, id, INFINIRT_MEM_GRANULARITY_MINIMUM);
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
        size_ = (kBytes + g - 1) / g * g;
        if ((st = infinirtMemAddressReserve(&ptr_, type, id, size_, 0)) != INFINI_STATUS_SUCCESS) {
            return st;
        }
        reserved_ = true;
        if ((st = infinirtMemCreate(&mem_, type, id, size_, INFINIRT_MEM_CREATE_SHAREABLE)) != INFINI_STATUS_SUCCESS ||
            (st = infinirtMemMap(ptr_, size_, mem_, 0)) != INFINI_STATUS_SUCCESS) {
            return st;
        }
        mapped_ = true;
        return st;
    }

    void *ptr_ = nullptr;
    size_t size_ = 0;
    infinirtPhysicalMem_t mem_ = nullptr;
    bool malloced_ = false;
    bool reserved_ = false;
    bool mapped_ = false;
    std::string why_;
};

// Fills [p, p + size) with Pattern(., seed) from the host, through a copy.
infiniStatus_t Fill(void *p, size_t size, unsigned seed) {
    std::vector<unsigned char> host(size);
    for (size_t i = 0; i < size; ++i) {
        host[i] = Pattern(i, seed);
    }
    return infinirtMemcpy(p, host.data(), size, INFINIRT_MEMCPY_H2D);
}

// How many bytes of [p, p + size) differ from Pattern(., seed); SIZE_MAX if the copy fails.
size_t Mismatches(const void *p, size_t size, unsigned seed) {
    std::vector<unsigned char> host(size);
    if (infinirtMemcpy(host.data(), p, size, INFINIRT_MEMCPY_D2H) != INFINI_STATUS_SUCCESS) {
        return SIZE_MAX;
    }
    size_t bad = 0;
    for (size_t i = 0; i < size; ++i) {
        bad += host[i] != Pattern(i, seed);
    }
    return bad;
}

// Opens a memory handle twice (same pointer), checks it is infinirt memory holding
// Pattern(., seed), writes Pattern(., reply) into it and closes it twice. With an event handle
// (event_hex not empty), waits for the event before reading.
void OpenUseAndClose(infiniDevice_t type, int id, const infinirtIpcMemHandle_t &handle, size_t size,
                     const std::string &event_hex, unsigned seed, unsigned reply) {
    if (!event_hex.empty()) {
        infinirtIpcEventHandle_t eh{};
        ASSERT_TRUE(FromHex(event_hex, eh));
        infinirtEvent_t e = nullptr;
        ASSERT_OK(infinirtIpcOpenEventHandle(&e, &eh));
        EXPECT_OK(infinirtEventSynchronize(e));
        EXPECT_OK(infinirtStreamWaitEvent(nullptr, e));
        EXPECT_OK(infinirtEventDestroy(e));
    }
    void *p = nullptr;
    ASSERT_OK(infinirtIpcOpenMemHandle(&p, type, id, &handle));
    void *again = nullptr;
    ASSERT_OK(infinirtIpcOpenMemHandle(&again, type, id, &handle));
    EXPECT_EQ(again, p) << "the same handle opened twice gives the same pointer";
    unsigned char *base = static_cast<unsigned char *>(p) - kOffset;

    infinirtPointerAttributes_t a{};
    a.struct_size = sizeof a;
    ASSERT_OK(infinirtPointerGetAttributes(&a, p));
    EXPECT_EQ(a.kind, INFINIRT_MEMORY_DEVICE);
    EXPECT_EQ(a.base, base);
    EXPECT_EQ(a.size, size);
    EXPECT_EQ(a.device_type, type);
    EXPECT_EQ(a.device_id, id);
    EXPECT_REFUSED(infinirtFree(base)) << "opened memory is given back with infinirtIpcCloseMemHandle";

    EXPECT_EQ(Mismatches(base, size, seed), 0u) << "the exporter's bytes";
    ASSERT_OK(infinirtMemset(base, 0, size));
    EXPECT_EQ(Mismatches(base, 1, 0), 0u);
    ASSERT_OK(Fill(base, size, reply));
    ASSERT_OK(infinirtDeviceSynchronize());

    EXPECT_OK(infinirtIpcCloseMemHandle(again));
    EXPECT_EQ(Mismatches(base, size, reply), 0u) << "still open after the first of two closes";
    EXPECT_OK(infinirtIpcCloseMemHandle(p));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtIpcCloseMemHandle(p)) << "closed twice";
    infinirtPointerAttributes_t gone{};
    gone.struct_size = sizeof gone;
    ASSERT_OK(infinirtPointerGetAttributes(&gone, p));
    EXPECT_NE(gone.base, base) << "the last close ends the record";
}

// An event of the current device, recorded on its default stream after the work queued so far,
// exported into `hex`; empty when the backend does not share events (NOT_IMPLEMENTED, with a
// reason).
void ExportEvent(ScopedEvent &event, std::string &hex) {
    ASSERT_OK(event.CreateWithFlags(INFINIRT_EVENT_INTERPROCESS | INFINIRT_EVENT_DISABLE_TIMING));
    ASSERT_OK(infinirtEventRecord(event, nullptr));
    infinirtIpcEventHandle_t eh{};
    const infiniStatus_t st = infinirtIpcGetEventHandle(&eh, event);
    if (st == INFINI_STATUS_NOT_IMPLEMENTED) {
        EXPECT_NE(std::strlen(infinirtGetLastErrorMessage()), 0u) << "NOT_IMPLEMENTED must say why";
        hex.clear();
        return;
    }
    ASSERT_OK(st);
    hex = ToHex(eh);
}

// Runs this binary as IpcChild.Run with `env` added, its kChildOut and kChildIn on `out` and `in`.
pid_t SpawnChild(const std::vector<std::string> &env, int out, int in) {
    std::vector<std::string> env_s;
    for (char **e = environ; *e != nullptr; ++e) {
        env_s.emplace_back(*e);
    }
    env_s.insert(env_s.end(), env.begin(), env.end());
    std::vector<char *> envp;
    for (std::string &s : env_s) {
        envp.push_back(s.data());
    }
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (out >= 0) {
        posix_spawn_file_actions_adddup2(&actions, out, kChildOut);
    }
    if (in >= 0) {
        posix_spawn_file_actions_adddup2(&actions, in, kChildIn);
    }
    char exe[] = "/proc/self/exe";
    char filter[] = "--gtest_filter=IpcChild.Run";
    char *argv[] = {exe, filter, nullptr};
    pid_t pid = -1;
    if (posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv, envp.data()) != 0) {
        pid = -1;
    }
    posix_spawn_file_actions_destroy(&actions);
    return pid;
}

::testing::AssertionResult ChildSucceeded(pid_t pid) {
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) {
        return ::testing::AssertionFailure() << "waitpid failed: " << std::strerror(errno);
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "the child failed (wait status " << status << "; its output is above)";
}

std::string Env(const char *name) {
    const char *v = std::getenv(name);
    return v != nullptr ? v : "";
}

// The child's side. INFINIRT_TEST_IPC_ROLE "open": opens INFINIRT_TEST_IPC_MEM (and waits for
// INFINIRT_TEST_IPC_EVENT if not empty), finds Pattern(., 13), leaves Pattern(., 29). "export":
// exports memory of kind INFINIRT_TEST_IPC_KIND holding Pattern(., 5) (and an event), writes
// "<size> <mem hex> <event hex or ->" on kChildOut, waits for kChildIn to close, then finds
// Pattern(., 31).
TEST(IpcChild, Run) {
    const std::string role = Env("INFINIRT_TEST_IPC_ROLE");
    if (role.empty()) {
        GTEST_SKIP() << "runs only as a child of the Ipc tests";
    }
    const auto type = static_cast<infiniDevice_t>(std::atoi(Env("INFINIRT_TEST_IPC_TYPE").c_str()));
    const int id = std::atoi(Env("INFINIRT_TEST_IPC_ID").c_str());
    ASSERT_OK(infinirtSetDevice(type, id));
    if (role == "open") {
        infinirtIpcMemHandle_t h{};
        ASSERT_TRUE(FromHex(Env("INFINIRT_TEST_IPC_MEM"), h));
        const size_t size = std::strtoull(Env("INFINIRT_TEST_IPC_SIZE").c_str(), nullptr, 10);
        OpenUseAndClose(type, id, h, size, Env("INFINIRT_TEST_IPC_EVENT"), 13, 29);
        return;
    }
    ASSERT_EQ(role, "export");
    const Kind kind = Env("INFINIRT_TEST_IPC_KIND") == KindName(Kind::kMalloc) ? Kind::kMalloc : Kind::kMapping;
    Shareable memory;
    infinirtIpcMemHandle_t h{};
    ASSERT_OK(memory.Make(type, id, kind, h));
    ASSERT_OK(Fill(memory.Base(), memory.Size(), 5));
    ScopedEvent event;
    std::string event_hex;
    ExportEvent(event, event_hex);
    const std::string line = std::to_string(memory.Size()) + " " + ToHex(h) + " " +
                             (event_hex.empty() ? std::string("-") : event_hex) + "\n";
    ASSERT_EQ(write(kChildOut, line.data(), line.size()), static_cast<ssize_t>(line.size()));
    close(kChildOut);
    char c = 0;
    while (read(kChildIn, &c, 1) > 0) {
    }
    EXPECT_EQ(Mismatches(memory.Base(), memory.Size(), 31), 0u) << "the parent's bytes";
}

class Ipc : public DeviceTest {
protected:
    Ipc() : DeviceTest({Feature::kMemory}) {}

    // Makes memory of `kind` and its handle, or skips where the backend does not share that
    // kind (cuda must share both, cpu mappings).
    void MakeOrSkip(Shareable &memory, Kind kind, infinirtIpcMemHandle_t &handle) {
        const infiniStatus_t st = memory.Make(type(), id(), kind, handle);
        const bool required = backend() == "cuda" || (backend() == "cpu" && kind == Kind::kMapping);
        if (st == INFINI_STATUS_NOT_IMPLEMENTED && !required) {
            ASSERT_FALSE(memory.WhyNot().empty()) << "NOT_IMPLEMENTED must say why";
            GTEST_SKIP() << KindName(kind) << ": " << memory.WhyNot();
        }
        ASSERT_OK(st) << KindName(kind) << ": " << memory.WhyNot();
    }

    std::vector<std::string> ChildEnv(const char *role, Kind kind) const {
        return {std::string("INFINIRT_TEST_IPC_ROLE=") + role, std::string("INFINIRT_TEST_IPC_KIND=") + KindName(kind),
                "INFINIRT_TEST_IPC_TYPE=" + std::to_string(static_cast<int>(type())),
                "INFINIRT_TEST_IPC_ID=" + std::to_string(id())};
    }

    void SpawnedChildOpensOurs(Kind kind);
    void WeOpenASpawnedChilds(Kind kind);
};

void Ipc::SpawnedChildOpensOurs(Kind kind) {
    Shareable memory;
    infinirtIpcMemHandle_t h{};
    MakeOrSkip(memory, kind, h);
    if (IsSkipped() || HasFatalFailure()) {
        return;
    }
    ASSERT_OK(infinirtMemset(memory.Base(), 0, memory.Size()));
    ASSERT_OK(infinirtDeviceSynchronize());
    // The pattern arrives through an asynchronous copy the event marks the end of.
    std::vector<unsigned char> host(memory.Size());
    for (size_t i = 0; i < host.size(); ++i) {
        host[i] = Pattern(i, 13);
    }
    ASSERT_OK(infinirtMemcpyAsync(memory.Base(), host.data(), host.size(), INFINIRT_MEMCPY_H2D, nullptr));
    ScopedEvent event;
    std::string event_hex;
    ExportEvent(event, event_hex);
    if (event_hex.empty()) {
        ASSERT_OK(infinirtDeviceSynchronize());
    }
    std::vector<std::string> env = ChildEnv("open", kind);
    env.push_back("INFINIRT_TEST_IPC_MEM=" + ToHex(h));
    env.push_back("INFINIRT_TEST_IPC_SIZE=" + std::to_string(memory.Size()));
    env.push_back("INFINIRT_TEST_IPC_EVENT=" + event_hex);
    // Where Yama lets only ancestors use pidfd_getfd, the exporter allows its child to copy the
    // descriptor of a mapping (docs/memory.md); without Yama the call fails and changes nothing.
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    const pid_t pid = SpawnChild(env, -1, -1);
    ASSERT_GT(pid, 0) << "posix_spawn failed";
    const ::testing::AssertionResult child = ChildSucceeded(pid);
    prctl(PR_SET_PTRACER, 0, 0, 0, 0);
    ASSERT_TRUE(child);
    EXPECT_EQ(Mismatches(memory.Base(), memory.Size(), 29), 0u) << "the child's bytes";
}

void Ipc::WeOpenASpawnedChilds(Kind kind) {
    {
        Shareable probe;
        infinirtIpcMemHandle_t h{};
        MakeOrSkip(probe, kind, h);
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
    }
    int out[2];
    int in[2];
    ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
    ASSERT_EQ(pipe2(in, O_CLOEXEC), 0);
    const pid_t pid = SpawnChild(ChildEnv("export", kind), out[1], in[0]);
    close(out[1]);
    close(in[0]);
    ASSERT_GT(pid, 0) << "posix_spawn failed";
    std::string line;
    char buf[512];
    ssize_t n = 0;
    while ((n = read(out[0], buf, sizeof buf)) > 0) {
        line.append(buf, static_cast<size_t>(n));
    }
    close(out[0]);
    char mem_hex[300] = {};
    char event_hex[300] = {};
    unsigned long long size = 0;
    const bool parsed = std::sscanf(line.c_str(), "%llu %299s %299s", &size, mem_hex, event_hex) == 3;
    if (parsed) {
        infinirtIpcMemHandle_t h{};
        EXPECT_TRUE(FromHex(mem_hex, h));
        OpenUseAndClose(type(), id(), h, static_cast<size_t>(size),
                        std::strcmp(event_hex, "-") == 0 ? std::string() : std::string(event_hex), 5, 31);
    }
    close(in[1]); // the child checks our bytes and exits
    EXPECT_TRUE(parsed) << "the child wrote \"" << line << "\"";
    EXPECT_TRUE(ChildSucceeded(pid));
}

TEST_P(Ipc, SpawnedChildOpensOurMalloc) { SpawnedChildOpensOurs(Kind::kMalloc); }
TEST_P(Ipc, SpawnedChildOpensOurMapping) { SpawnedChildOpensOurs(Kind::kMapping); }
TEST_P(Ipc, WeOpenASpawnedChildsMalloc) { WeOpenASpawnedChilds(Kind::kMalloc); }
TEST_P(Ipc, WeOpenASpawnedChildsMapping) { WeOpenASpawnedChilds(Kind::kMapping); }

TEST_P(Ipc, Refusals) {
    Shareable memory;
    infinirtIpcMemHandle_t h{};
    MakeOrSkip(memory, Kind::kMapping, h);
    if (IsSkipped() || HasFatalFailure()) {
        return;
    }
    infinirtIpcMemHandle_t untouched;
    std::memset(untouched.bytes, 0xAB, sizeof untouched.bytes);
    infinirtIpcMemHandle_t out = untouched;
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtIpcGetMemHandle(nullptr, memory.Base()));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtIpcGetMemHandle(&out, nullptr));
    int on_the_stack = 0;
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtIpcGetMemHandle(&out, &on_the_stack)) << "memory infinirt does not know";
    PinnedBuffer pinned;
    ASSERT_OK(pinned.MallocHost(4096));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtIpcGetMemHandle(&out, pinned)) << "host memory";
    EXPECT_EQ(std::memcmp(out.bytes, untouched.bytes, sizeof out.bytes), 0) << "a refusal leaves the handle alone";

    // Garbage, and a handle of the other kind, opened: refused, the output left alone.
    void *const sentinel = reinterpret_cast<void *>(0x1234);
    void *p = sentinel;
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtIpcOpenMemHandle(nullptr, type(), id(), &h));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtIpcOpenMemHandle(&p, type(), id(), nullptr));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtIpcOpenMemHandle(&p, type(), id(), &untouched));
    infinirtIpcMemHandle_t zero{};
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtIpcOpenMemHandle(&p, type(), id(), &zero));
    // A mapping's handle whose backend part names no process (cpu, cuda and hip put the
    // exporter's pid first there).
    infinirtIpcMemHandle_t no_process = h;
    std::memset(no_process.bytes + 32, 0, 4);
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtIpcOpenMemHandle(&p, type(), id(), &no_process));
    infinirtIpcEventHandle_t mem_as_event{};
    std::memcpy(mem_as_event.bytes, h.bytes, sizeof h.bytes);
    infinirtEvent_t e = sentinel;
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtIpcOpenEventHandle(&e, &mem_as_event));
    EXPECT_EQ(e, sentinel);
    // A handle of this backend opened on another backend's device.
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        int count = 0;
        if (t == static_cast<int>(type()) || infinirtGetDeviceCount(static_cast<infiniDevice_t>(t), &count) != INFINI_STATUS_SUCCESS ||
            count == 0) {
            continue;
        }
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtIpcOpenMemHandle(&p, static_cast<infiniDevice_t>(t), 0, &h))
            << "a foreign handle";
    }
    EXPECT_EQ(p, sentinel) << "a refusal leaves the pointer alone";

    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtIpcCloseMemHandle(nullptr));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtIpcCloseMemHandle(memory.Base())) << "memory not opened";

    // Events: only INTERPROCESS ones, which need DISABLE_TIMING.
    infinirtEvent_t bad = nullptr;
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtEventCreateWithFlags(&bad, INFINIRT_EVENT_INTERPROCESS));
    ScopedEvent plain;
    ASSERT_OK(plain.Create());
    infinirtIpcEventHandle_t eh{};
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtIpcGetEventHandle(&eh, plain));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtIpcGetEventHandle(nullptr, plain));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtIpcGetEventHandle(&eh, sentinel));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtIpcOpenEventHandle(nullptr, &eh));
}

// Memory the backend cannot share: NOT_IMPLEMENTED, saying why.
TEST_P(Ipc, UnshareableMemoryIsNotImplemented) {
    Shareable memory;
    infinirtIpcMemHandle_t h{};
    MakeOrSkip(memory, Kind::kMapping, h);
    if (IsSkipped() || HasFatalFailure()) {
        return;
    }
    size_t g = 0;
    if (infinirtMemGetAllocationGranularity(&g, type(), id(), INFINIRT_MEM_GRANULARITY_MINIMUM) != INFINI_STATUS_SUCCESS) {
        GTEST_SKIP() << "no virtual memory";
    }
    void *base = nullptr;
    ASSERT_OK(infinirtMemAddressReserve(&base, type(), id(), g, 0));
    Defer free_range([&] { infinirtMemAddressFree(base, g); });
    infinirtPhysicalMem_t mem = nullptr;
    ASSERT_OK(infinirtMemCreate(&mem, type(), id(), g, 0));
    Defer release([&] { infinirtMemRelease(mem); });
    ASSERT_OK(infinirtMemMap(base, g, mem, 0));
    Defer unmap([&] { infinirtMemUnmap(base, g); });
    infinirtIpcMemHandle_t out{};
    EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtIpcGetMemHandle(&out, base)) << "not created shareable";
    EXPECT_NE(std::strlen(infinirtGetLastErrorMessage()), 0u);
}

// cpu: the handle names the exporter's memfd; once the memory is gone, opening it is INVALID_HANDLE.
TEST_P(Ipc, CpuHandleOfReleasedMemory) {
    if (backend() != "cpu") {
        GTEST_SKIP() << "the cpu's handle";
    }
    infinirtIpcMemHandle_t h{};
    {
        Shareable memory;
        ASSERT_OK(memory.Make(type(), id(), Kind::kMapping, h));
        ASSERT_OK(Fill(memory.Base(), memory.Size(), 3));
        void *p = nullptr;
        ASSERT_OK(infinirtIpcOpenMemHandle(&p, type(), id(), &h)) << "a cpu handle opens in its own process too";
        EXPECT_NE(p, memory.Interior()) << "a second mapping";
        EXPECT_EQ(Mismatches(static_cast<unsigned char *>(p) - kOffset, memory.Size(), 3), 0u);
        EXPECT_OK(infinirtIpcCloseMemHandle(p));
        void *malloced = nullptr;
        ASSERT_OK(infinirtMalloc(&malloced, 4096));
        Defer free_it([&] { infinirtFree(malloced); });
        infinirtIpcMemHandle_t out{};
        EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtIpcGetMemHandle(&out, malloced))
            << "cpu infinirtMalloc memory is heap memory";
    }
    void *p = reinterpret_cast<void *>(0x1234);
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtIpcOpenMemHandle(&p, type(), id(), &h));
    EXPECT_EQ(p, reinterpret_cast<void *>(0x1234));
}

INSTANTIATE_ON_ALL_DEVICES(Ipc);

} // namespace
} // namespace infinirt_test
