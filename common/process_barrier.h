/* process_barrier.h - the heavy side of an asymmetric fence, shared by libinfinirt and libinfinicore
 * (hidden symbols: each library links its own copy).
 *
 * Dekker-style exclusion between a side that runs often and one that runs rarely: the frequent side
 * stores its flag, then a compiler barrier (std::atomic_signal_fence), then loads the rare side's
 * flag; the rare side stores its flag with a seq_cst read-modify-write, calls processWideBarrier(),
 * then loads the frequent side's flag (seq_cst). Either side then sees the other's store, and the
 * frequent side runs no locked instruction.
 *
 * processWideBarrier() makes every CPU that runs a thread of this process execute a full memory
 * barrier: membarrier(2) (MEMBARRIER_CMD_PRIVATE_EXPEDITED, registered when the library loads;
 * forked children inherit the registration), or where the kernel or a seccomp filter refuses it, a
 * protection change of a locked page, whose TLB shootdown interrupts every such CPU (the technique
 * of FlushProcessWriteBuffers in .NET's runtime). Microseconds; any thread. */
#ifndef INFINIRT_COMMON_PROCESS_BARRIER_H
#define INFINIRT_COMMON_PROCESS_BARRIER_H

namespace infinirt::common {

void processWideBarrier();

} // namespace infinirt::common

#endif
