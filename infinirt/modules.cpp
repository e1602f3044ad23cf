#include "modules.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace infinirt {

infiniStatus_t ModuleRecord::release(bool report) {
    if (refs.fetch_sub(1, std::memory_order_acq_rel) != 1) {
        return INFINI_STATUS_SUCCESS;
    }
    infiniStatus_t st = INFINI_STATUS_SUCCESS;
    if (backend->table.module_unload != nullptr) {
        if (report) {
            st = INFINIRT_DEVICE_CALL(backend, module_unload, device, native);
        } else {
            st = backend->table.module_unload(device, native);
            if (st != INFINI_STATUS_SUCCESS) {
                logf(INFINIRT_LOG_WARN, "%s:%d: deferred module_unload failed with status %d", typeName(type), device,
                     static_cast<int>(st));
            }
        }
    }
    delete this;
    return st;
}

void ModuleRefs::add(ModuleRecord *m) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const ModuleRef &r : modules) {
        if (r.get() == m) {
            return;
        }
    }
    modules.emplace_back(m);
}

void ModuleRefs::addEvent(const HandleSlot *event) {
    const uint64_t key = event->key.load(std::memory_order_acquire);
    std::lock_guard<std::mutex> lock(mutex);
    for (const EventUse &e : events) {
        if (e.slot == event && e.key == key) {
            return;
        }
    }
    events.push_back(EventUse{event, key});
}

bool ModuleRefs::eventsAlive() const {
    for (const EventUse &e : events) {
        if (e.slot->key.load(std::memory_order_acquire) != e.key) {
            return false;
        }
    }
    return true;
}

namespace {

constexpr uint16_t kElfMachineCuda = 190;
constexpr uint16_t kElfMachineAmdgpu = 224;

bool startsWith(const unsigned char *p, size_t size, const unsigned char *magic, size_t n) {
    return size >= n && std::memcmp(p, magic, n) == 0;
}

// True when `text` (not NUL-terminated) contains `word`.
bool contains(const char *text, size_t size, const char *word) {
    const size_t n = std::strlen(word);
    return std::search(text, text + size, word, word + n) != text + size;
}

} // namespace

infinirtModuleFormat_t sniffFormat(const void *data, size_t size, std::string &why) {
    const auto *p = static_cast<const unsigned char *>(data);
    static const unsigned char kElf[] = {0x7f, 'E', 'L', 'F'};
    static const unsigned char kFatbin[] = {0x50, 0xed, 0x55, 0xba};
    static const unsigned char kSpirvLe[] = {0x03, 0x02, 0x23, 0x07};
    static const unsigned char kSpirvBe[] = {0x07, 0x23, 0x02, 0x03};
    if (startsWith(p, size, kElf, sizeof kElf)) {
        if (size < 20) {
            why = "an ELF header cut short";
            return INFINIRT_MODULE_FORMAT_AUTO;
        }
        const uint16_t machine = static_cast<uint16_t>(p[5] == 2 ? (p[18] << 8) | p[19] : p[18] | (p[19] << 8));
        if (machine == kElfMachineCuda) {
            return INFINIRT_MODULE_FORMAT_CUBIN;
        }
        if (machine == kElfMachineAmdgpu) {
            return INFINIRT_MODULE_FORMAT_HSACO;
        }
        return INFINIRT_MODULE_FORMAT_HOST_SO;
    }
    if (startsWith(p, size, kFatbin, sizeof kFatbin)) {
        return INFINIRT_MODULE_FORMAT_FATBIN;
    }
    if (startsWith(p, size, kSpirvLe, sizeof kSpirvLe) || startsWith(p, size, kSpirvBe, sizeof kSpirvBe)) {
        return INFINIRT_MODULE_FORMAT_SPIRV;
    }
    // Text: no NUL but a trailing one, and no control bytes other than white space.
    size_t text = size;
    while (text > 0 && p[text - 1] == 0) {
        --text;
    }
    for (size_t i = 0; i < text; ++i) {
        const unsigned char c = p[i];
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v') {
            char buf[96];
            std::snprintf(buf, sizeof buf,
                          "binary data (byte 0x%02x at offset %zu) that is no ELF, fatbin or SPIR-V image", c, i);
            why = buf;
            return INFINIRT_MODULE_FORMAT_AUTO;
        }
    }
    if (text == 0) {
        why = "nothing but NUL bytes";
        return INFINIRT_MODULE_FORMAT_AUTO;
    }
    const char *t = reinterpret_cast<const char *>(p);
    const size_t head = std::min<size_t>(text, 1u << 16);
    if (contains(t, head, ".version") && contains(t, head, ".target")) {
        return INFINIRT_MODULE_FORMAT_PTX;
    }
    return INFINIRT_MODULE_FORMAT_OPENCL_C;
}

} // namespace infinirt
