/* Every public C header, included twice (include guards) in one translation unit; compiled by clang
 * with -Wall -Wextra -Werror as C and as C++ (tests/headers/CMakeLists.txt). */
#include <infiniccl.h>
#include <infiniccl_plugin.h>
#include <infinicore.h>
#include <infinirt.h>
#include <infinirt_cpu_kernel.h>
#include <infinirt_plugin.h>

#include <infiniccl.h>
#include <infiniccl_plugin.h>
#include <infiniccl.h>
#include <infiniccl_plugin.h>
#include <infinicore.h>
#include <infinirt.h>
#include <infinirt_cpu_kernel.h>
#include <infinirt_plugin.h>

/* Uses a type of each header, so that an unusable declaration fails too. */
int infinirtHeadersCheck(const infinirtPluginTable_t *table, const infinirtCpuLaunch_t *launch);
int infinirtHeadersCheck(const infinirtPluginTable_t *table, const infinirtCpuLaunch_t *launch) {
    infinirtDeviceProperties_t props;
    props.struct_size = sizeof props;
    return (int)props.struct_size + (int)table->struct_size + (int)launch->block[0] + (int)INFINI_STATUS_SUCCESS;
}
