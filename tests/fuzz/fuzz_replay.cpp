// Runs fuzz_calls.cpp's target over files and directories (the checked-in corpus and every crash
// ever found, tests/fuzz/corpus/calls/), without libFuzzer: the regression test of the fuzzer,
// in every build. Exit 0 when every input ran; a broken rule aborts naming the call.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/stat.h>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {
int runFile(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
    std::fprintf(stderr, "fuzz_replay: %s (%zu bytes)\n", path.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
    return 1;
}
} // namespace

int main(int argc, char **argv) {
    LLVMFuzzerInitialize(&argc, &argv);
    int ran = 0;
    for (int i = 1; i < argc; ++i) {
        struct stat st {};
        if (stat(argv[i], &st) != 0) {
            std::fprintf(stderr, "fuzz_replay: %s: not found\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            ran += runFile(argv[i]);
            continue;
        }
        std::vector<std::string> files;
        if (DIR *d = opendir(argv[i])) {
            while (dirent *e = readdir(d)) {
                if (e->d_name[0] != '.') {
                    files.push_back(std::string(argv[i]) + "/" + e->d_name);
                }
            }
            closedir(d);
        }
        std::sort(files.begin(), files.end());
        for (const std::string &f : files) {
            ran += runFile(f);
        }
    }
    std::printf("fuzz_replay: %d input(s) ran, every rule held\n", ran);
    return ran > 0 ? 0 : 1;
}
