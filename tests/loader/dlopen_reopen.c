/* libinfinirt opened and closed with dlopen/dlclose again and again (as ctypes and plugin hosts
 * do): the library is -z nodelete, so every open finds the same instance -- the same code, and
 * the stream created through the first open still valid -- and nothing is reloaded (or leaked)
 * per cycle. Takes the library's path as its argument. Exit 0 on success. */
#include <infinirt.h>

#include <dlfcn.h>
#include <stdio.h>

typedef infiniStatus_t (*StreamCreateFn)(infinirtStream_t *);
typedef infiniStatus_t (*StreamQueryFn)(infinirtStream_t);

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <path to libinfinirt.so>\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    StreamCreateFn create = (StreamCreateFn)dlsym(lib, "infinirtStreamCreate");
    infinirtStream_t stream = NULL;
    if (create == NULL || create(&stream) != INFINI_STATUS_SUCCESS) {
        fprintf(stderr, "infinirtStreamCreate failed\n");
        return 1;
    }
    void *first = (void *)create;
    for (int cycle = 0; cycle < 50; ++cycle) {
        if (dlclose(lib) != 0) {
            fprintf(stderr, "dlclose: %s\n", dlerror());
            return 1;
        }
        lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
        if (lib == NULL) {
            fprintf(stderr, "cycle %d: dlopen: %s\n", cycle, dlerror());
            return 1;
        }
        if (dlsym(lib, "infinirtStreamCreate") != first) {
            fprintf(stderr, "cycle %d: the library was unloaded and loaded again (a new instance)\n", cycle);
            return 1;
        }
        StreamQueryFn query = (StreamQueryFn)dlsym(lib, "infinirtStreamQuery");
        if (query == NULL || query(stream) != INFINI_STATUS_SUCCESS) {
            fprintf(stderr, "cycle %d: the stream made before dlclose is gone\n", cycle);
            return 1;
        }
    }
    printf("50 dlclose/dlopen cycles: same instance, stream still valid\n");
    return 0;
}
