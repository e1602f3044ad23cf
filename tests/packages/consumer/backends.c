/* A program outside the tree, built against the installed packages (tests/packages/packages_test.sh):
 * with pkg-config and with find_package(infinirt). Prints each backend named on the command line as
 * "<name>: <state> <plugin file>" or "<name>: absent" when no plugin file of that name was found,
 * then copies 1 MiB host -> cpu device -> host and checks it. Exit 0 only if the copy is right. */
#include <infinirt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        infiniStatus_t st_ = (call);                                                               \
        if (st_ != INFINI_STATUS_SUCCESS) {                                                        \
            fprintf(stderr, "%s failed: %s: %s\n", #call, infinirtGetErrorName(st_),               \
                    infinirtGetLastErrorMessage());                                                \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static const char *stateName(infinirtBackendState_t s) {
    switch (s) {
    case INFINIRT_BACKEND_LOADED: return "loaded";
    case INFINIRT_BACKEND_UNAVAILABLE: return "unavailable";
    case INFINIRT_BACKEND_FAILED: return "failed";
    case INFINIRT_BACKEND_SHADOWED: return "shadowed";
    }
    return "?";
}

int main(int argc, char **argv) {
    CHECK(infinirtInit());
    int count = 0;
    CHECK(infinirtGetBackendCount(&count));
    for (int a = 1; a < argc; ++a) {
        int found = 0;
        for (int i = 0; i < count; ++i) {
            infinirtBackendInfo_t info;
            memset(&info, 0, sizeof info);
            info.struct_size = sizeof info;
            CHECK(infinirtGetBackendInfo(i, &info));
            if (strcmp(info.name, argv[a]) == 0) {
                printf("%s: %s %s\n", argv[a], stateName(info.state), info.path);
                found = 1;
            }
        }
        if (!found) {
            printf("%s: absent\n", argv[a]);
        }
    }
    const size_t n = 1 << 20;
    unsigned char *in = malloc(n), *out = malloc(n);
    if (in == NULL || out == NULL) {
        return 1;
    }
    for (size_t i = 0; i < n; ++i) {
        in[i] = (unsigned char)(i * 7 + 3);
    }
    void *dev = NULL;
    CHECK(infinirtSetDevice(INFINI_DEVICE_CPU, 0));
    CHECK(infinirtMalloc(&dev, n));
    CHECK(infinirtMemcpy(dev, in, n, INFINIRT_MEMCPY_H2D));
    CHECK(infinirtMemcpy(out, dev, n, INFINIRT_MEMCPY_D2H));
    CHECK(infinirtFree(dev));
    const int same = memcmp(in, out, n) == 0;
    printf("copy through cpu:0: %s\n", same ? "ok" : "WRONG");
    free(in);
    free(out);
    return same ? 0 : 1;
}
