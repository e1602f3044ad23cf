// bench_progress.h - the progress line of infinirt-bench's sweeps: "[12/57] bandwidth h2d_pinned
// 64 MiB" rewritten in place on stderr, only when stderr is a terminal (pipes and logs get none,
// as bench/common/console.h keeps colours to terminals).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace infinirt_bench_tool {

class Progress {
  public:
    explicit Progress(int total) : total_(total), tty_(isatty(fileno(stderr)) != 0) {}
    ~Progress() { clear(); }

    void step(const std::string &what) {
        ++done_;
        if (tty_) {
            std::fprintf(stderr, "\r\033[K[%d/%d] %s", done_, total_, what.c_str());
            std::fflush(stderr);
        }
    }
    void clear() {
        if (tty_ && done_ > 0) {
            std::fprintf(stderr, "\r\033[K");
            std::fflush(stderr);
        }
    }

  private:
    int total_;
    int done_ = 0;
    bool tty_;
};

} // namespace infinirt_bench_tool
