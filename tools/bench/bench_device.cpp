// bench_device.cpp - opens the device infinirt-bench measures and fills the report's header.
#include "bench_device.h"

#include "bench_failed.h"
#include "bench_sizes.h"

#include <cstdio>

namespace infinirt_bench_tool {

int openDevice(const Options &options, infiniDevice_t *type, int *id) {
    infiniStatus_t st = infinirtInit();
    if (st != INFINI_STATUS_SUCCESS) {
        return failed("infinirtInit", st);
    }
    *type = options.type;
    *id = options.id;
    if (!options.has_device && (st = infinirtGetDevice(type, id)) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtGetDevice", st);
    }
    int count = 0;
    if ((st = infinirtGetDeviceCount(*type, &count)) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtGetDeviceCount", st);
    }
    if (*id >= count) {
        std::fprintf(stderr, "infinirt-bench: --device %s:%d: there %s %d %s device%s (infinirt-info lists them)\n",
                     deviceTypeName(*type), *id, count == 1 ? "is" : "are", count, deviceTypeName(*type),
                     count == 1 ? "" : "s");
        return 2;
    }
    if ((st = infinirtSetDevice(*type, *id)) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtSetDevice", st);
    }
    return -1;
}

int describeRun(const Options &options, infiniDevice_t type, int id, Results *r) {
    r->version = INFINIRT_BENCH_VERSION;
    r->device_type = deviceTypeName(type);
    r->device_id = id;
    r->quick = options.quick;
    r->rounds = options.quick ? 1 : 5;
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof props;
    const infiniStatus_t st = infinirtGetDeviceProperties(type, id, &props);
    if (st != INFINI_STATUS_SUCCESS) {
        return failed("infinirtGetDeviceProperties", st);
    }
    r->device_name = props.name;
    int backends = 0;
    infinirtGetBackendCount(&backends);
    for (int b = 0; b < backends; ++b) {
        infinirtBackendInfo_t info{};
        info.struct_size = sizeof info;
        if (infinirtGetBackendInfo(b, &info) == INFINI_STATUS_SUCCESS && info.device_type == type &&
            info.state == INFINIRT_BACKEND_LOADED) {
            r->backend = info.name;
        }
    }
    const size_t asked = options.max_size != 0 ? options.max_size : (options.quick ? size_t{1} << 20 : size_t{1} << 30);
    r->max_size = fitMemory(*r, asked, type, id);
    return -1;
}

} // namespace infinirt_bench_tool
