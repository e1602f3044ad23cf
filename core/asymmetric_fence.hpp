// Asymmetric fences: Dekker-style mutual exclusion between a thread that enters often (the owner of
// a per-thread structure) and threads that enter rarely (another thread draining it), without a
// locked instruction on the frequent side.
//
// The pattern: the frequent side stores its flag, then lightFence(), then loads the other side's;
// the rare side stores its flag (seq_cst), then heavyFence(), then loads the frequent side's
// (seq_cst). Either side then sees the other's store. Where the kernel has
// membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), lightFence() is a compiler barrier and heavyFence()
// makes every running thread of the process execute a full barrier (microseconds). Elsewhere
// (asymmetricFences() false) the frequent side stores and loads seq_cst instead, and heavyFence()
// does nothing: both sides' seq_cst operations are then the classic Dekker.
//
// Thread safety: any thread. asymmetricFences() does not change after libinfinicore is loaded; a
// process that forks keeps its registration (the kernel copies it), and heavyFence() registers
// again if the kernel refuses the barrier.
#ifndef INFINICORE_CORE_ASYMMETRIC_FENCE_HPP
#define INFINICORE_CORE_ASYMMETRIC_FENCE_HPP

#include <atomic>

namespace infinicore::detail {

// True when heavyFence() is membarrier's: the frequent side may then use lightFence() after a
// relaxed store. Otherwise it must store seq_cst.
extern bool g_asymmetric_fences __attribute__((visibility("hidden")));
inline bool asymmetricFences() { return __builtin_expect(g_asymmetric_fences, true); }

// The frequent side's fence, valid only when asymmetricFences(): orders nothing in the processor;
// the heavy fence of the rare side does that for it.
inline void lightFence() { std::atomic_signal_fence(std::memory_order_seq_cst); }

// The rare side's fence, between its seq_cst store and its seq_cst load: after it, the rare side
// sees the store a frequent side made before its light fence, or that frequent side sees the rare
// side's store.
void heavyFence() noexcept;

} // namespace infinicore::detail

#endif // INFINICORE_CORE_ASYMMETRIC_FENCE_HPP
