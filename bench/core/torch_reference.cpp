// PyTorch's CUDA caching allocator, called from C++ as an engine embedding libtorch would.
#include "reference.hpp"

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>

namespace bench_ref {

namespace alloc = c10::cuda::CUDACachingAllocator;

bool torchInit(const char **why) {
    const int count = static_cast<int>(c10::cuda::device_count());
    if (count == 0) {
        *why = "no CUDA device";
        return false;
    }
    alloc::init(count);
    return true;
}

void *torchAlloc(size_t size) { return alloc::raw_alloc(size); }
void torchFree(void *ptr) { alloc::raw_delete(ptr); }
void torchEmptyCache() { alloc::emptyCache(); }
void torchResetPeak() { alloc::resetPeakStats(0); }
size_t torchPeakReserved() { return static_cast<size_t>(alloc::getDeviceStats(0).reserved_bytes[0].peak); }

} // namespace bench_ref
