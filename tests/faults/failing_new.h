// Control of the test program's failing operator new (failing_new.cc).
#pragma once

namespace failing_new {
// From now on, allocation number `fail_at` (1-based, every thread) fails, and with `sticky` every
// later one too. Resets the count.
void arm(long fail_at, bool sticky);
void disarm();
// Allocations counted since arm() (while armed).
long allocations();
// Whether an armed allocation has failed.
bool failedOne();
} // namespace failing_new
