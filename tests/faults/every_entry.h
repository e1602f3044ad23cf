// A program that calls every exported function of infinirt.h on cpu:0 and cpu:1 (every_entry.cc),
// checking each call's status: documented, with a message on failure.
#pragma once


namespace every_entry {
// Reads what the program needs from files (the cpu kernels' shared object); call before run.
void prepare();
// Runs the program once, allocating nothing itself; false when a call's answer broke the
// contract (violation() names it).
bool run();
const char *violation();
// The call checked last (an exception out of the next one crossed the C ABI).
const char *lastChecked();
// The call being made last.
const char *calling();
} // namespace every_entry
