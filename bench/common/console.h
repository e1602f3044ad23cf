// console.h - Google Benchmark's console output for the benchmark programs' own reporters.
//
// A ConsoleReporter built with its default options prints ANSI colours wherever stdout goes (the
// library applies --benchmark_color only to the reporter it creates itself), so a program passing
// its own reporter writes escape codes into pipes and log files. consoleOptions() colours only a
// terminal, and honours --benchmark_color=false / NO_COLOR there.
#ifndef INFINIRT_BENCH_CONSOLE_H
#define INFINIRT_BENCH_CONSOLE_H

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace infinirt_bench {

// Call before benchmark::Initialize (which removes the --benchmark_* arguments it knows).
inline benchmark::ConsoleReporter::OutputOptions consoleOptions(int argc, char **argv) {
    bool colour = isatty(fileno(stdout)) != 0 && std::getenv("NO_COLOR") == nullptr;
    for (int i = 1; i < argc; ++i) {
        const char *flag = "--benchmark_color=";
        if (std::strncmp(argv[i], flag, std::strlen(flag)) == 0) {
            const char *value = argv[i] + std::strlen(flag);
            if (std::strcmp(value, "true") == 0 || std::strcmp(value, "yes") == 0 || std::strcmp(value, "1") == 0) {
                colour = true;
            } else if (std::strcmp(value, "auto") != 0) {
                colour = false;
            }
        }
    }
    return colour ? benchmark::ConsoleReporter::OO_ColorTabular : benchmark::ConsoleReporter::OO_Tabular;
}

} // namespace infinirt_bench

#endif // INFINIRT_BENCH_CONSOLE_H
