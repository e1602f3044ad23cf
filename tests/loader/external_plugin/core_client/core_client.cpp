// core_client.cpp - a round trip through infinicore::context on cpu:0, from the installed package.
// Exit code 0 and "infinicore client: OK" when the data came back.
#include <infinicore/context/context.hpp>

#include <cstdio>
#include <cstring>
#include <exception>

int main() {
    namespace ctx = infinicore::context;
    try {
        ctx::setDevice(infinicore::Device(infinicore::Device::Type::CPU, 0));
        unsigned char in[256];
        unsigned char out[256];
        for (int i = 0; i < 256; ++i) {
            in[i] = static_cast<unsigned char>(255 - i);
        }
        std::memset(out, 0, sizeof out);
        auto memory = ctx::allocateMemory(sizeof in);
        ctx::memcpyH2D(memory->data(), in, sizeof in, false);
        ctx::memcpyD2H(out, memory->data(), sizeof out);
        if (std::memcmp(in, out, sizeof in) != 0) {
            std::fprintf(stderr, "data mismatch through infinicore\n");
            return 2;
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "infinicore failed: %s\n", e.what());
        return 1;
    }
    std::printf("infinicore client: OK\n");
    return 0;
}
