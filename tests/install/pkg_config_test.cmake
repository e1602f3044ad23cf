# infinirt.pc for each layout, run by ctest as `cmake -P`. For each, `pkg-config --cflags --libs
# infinirt` must name existing folders of that tree, and a C program built with those flags runs:
#   1. prefix /usr through DESTDIR (the real install): absolute paths, prefix=/usr;
#   2. prefix /usr with Debian's multiarch libdir lib/<triplet> (the .pc writer, on a copy of that
#      tree): includedir must be /usr/include, not /usr/lib/include;
#   3. the multiarch tree again with a relocatable /opt-style .pc (${pcfiledir}/../../..);
#   4. a relocatable prefix (the real install to a temporary /opt-like folder), then moved.
# Inputs (-D): INFINIRT_BUILD_DIR, WRITER (cmake/write_infinirt_pc.cmake), WORK_DIR, C_COMPILER,
# LIBDIR, INCLUDEDIR, VERSION.
cmake_minimum_required(VERSION 3.20)

foreach(var INFINIRT_BUILD_DIR WRITER WORK_DIR C_COMPILER LIBDIR INCLUDEDIR VERSION)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "pkg_config_test.cmake: -D${var}=... is required")
  endif()
endforeach()
find_program(PKG_CONFIG pkg-config REQUIRED)

include(${CMAKE_CURRENT_LIST_DIR}/../cmake_run.cmake)

# pkg-config for the .pc folder `pcdir` only (env: extra NAME=VALUE settings).
function(pkg_config out_var pcdir)
  run(${CMAKE_COMMAND} -E env --unset=PKG_CONFIG_PATH PKG_CONFIG_LIBDIR=${pcdir} ${ARGN} OUTPUT_VARIABLE out)
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# Checks `pkg-config --cflags --libs` for the .pc in `pcdir`: every -I/-L folder exists inside
# `root`, -linfinirt is there; then builds and runs a client with those flags.
function(check_layout label pcdir root libdir_in_root)
  pkg_config(flags ${pcdir} PKG_CONFIG_SYSROOT_DIR=${SYSROOT} PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1
             PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 ${PKG_CONFIG} --cflags --libs infinirt)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  get_filename_component(real_root ${root} REALPATH)
  set(seen_l OFF)
  set(seen_dirs "")
  foreach(flag IN LISTS flags)
    if(flag MATCHES "^-[IL](.+)$")
      set(dir ${CMAKE_MATCH_1})
      get_filename_component(real ${dir} REALPATH)
      if(NOT IS_DIRECTORY ${real})
        message(FATAL_ERROR "${label}: pkg-config names ${flag}, which does not exist (flags: ${flags})")
      endif()
      string(FIND "${real}/" "${real_root}/" at)
      if(NOT at EQUAL 0)
        message(FATAL_ERROR "${label}: ${flag} is outside the installed tree ${root} (flags: ${flags})")
      endif()
      list(APPEND seen_dirs ${flag})
    elseif(flag STREQUAL "-linfinirt")
      set(seen_l ON)
    endif()
  endforeach()
  list(LENGTH seen_dirs dir_count)
  if(NOT seen_l OR NOT dir_count EQUAL 2)
    message(FATAL_ERROR "${label}: expected -I, -L and -linfinirt, got: ${flags}")
  endif()
  if(NOT EXISTS ${real_root}/include/infinirt.h AND NOT EXISTS ${real_root}/usr/include/infinirt.h)
    message(FATAL_ERROR "${label}: no infinirt.h in ${root}")
  endif()
  set(exe ${WORK_DIR}/client-${label})
  run(${C_COMPILER} -std=c99 -o ${exe} ${WORK_DIR}/pc_client.c ${flags})
  run(${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${libdir_in_root} ${exe} OUTPUT_VARIABLE out)
  if(NOT out MATCHES "pkg-config client: OK")
    message(FATAL_ERROR "${label}: the client did not work:\n${out}")
  endif()
  message(STATUS "${label}: ${flags}: OK")
endfunction()

function(expect_variable pcdir name expected)
  pkg_config(value ${pcdir} ${PKG_CONFIG} --variable=${name} infinirt)
  if(NOT value STREQUAL expected)
    message(FATAL_ERROR "${pcdir}/infinirt.pc: ${name} is \"${value}\", expected \"${expected}\"")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
file(WRITE ${WORK_DIR}/pc_client.c [=[
#include <infinirt.h>
#include <stdio.h>
int main(void) {
    int count = 0;
    if (infinirtInit() != INFINI_STATUS_SUCCESS || infinirtGetDeviceCount(INFINI_DEVICE_CPU, &count) != INFINI_STATUS_SUCCESS ||
        count < 1) {
        fprintf(stderr, "no cpu device: %s\n", infinirtGetLastErrorMessage());
        return 1;
    }
    printf("pkg-config client: OK\n");
    return 0;
}
]=])

# 1. /usr through DESTDIR
set(stage ${WORK_DIR}/stage)
run(${CMAKE_COMMAND} -E env DESTDIR=${stage} ${CMAKE_COMMAND} --install ${INFINIRT_BUILD_DIR} --prefix /usr)
set(pcdir ${stage}/usr/${LIBDIR}/pkgconfig)
file(STRINGS ${pcdir}/infinirt.pc prefix_line REGEX "^prefix=")
if(NOT prefix_line STREQUAL "prefix=/usr")
  message(FATAL_ERROR "a /usr install should write prefix=/usr, not ${prefix_line}")
endif()
expect_variable(${pcdir} includedir /usr/${INCLUDEDIR})
expect_variable(${pcdir} libdir /usr/${LIBDIR})
set(SYSROOT ${stage})
check_layout(usr ${pcdir} ${stage} ${stage}/usr/${LIBDIR})

# 2. /usr with a multiarch libdir: the same files where Debian puts them
set(triplet x86_64-linux-gnu)
if(CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  set(triplet aarch64-linux-gnu)
endif()
set(multi ${WORK_DIR}/multiarch)
file(MAKE_DIRECTORY ${multi}/usr/lib/${triplet})
file(COPY ${stage}/usr/${INCLUDEDIR}/ DESTINATION ${multi}/usr/include)
file(GLOB libs ${stage}/usr/${LIBDIR}/libinfini*)
file(COPY ${libs} ${stage}/usr/${LIBDIR}/infinirt DESTINATION ${multi}/usr/lib/${triplet})
set(pcdir ${multi}/usr/lib/${triplet}/pkgconfig)
run(${CMAKE_COMMAND} -DPC_PREFIX=/usr -DPC_LIBDIR=lib/${triplet} -DPC_INCLUDEDIR=include -DPC_VERSION=${VERSION}
    -DPC_FILE=${pcdir}/infinirt.pc -P ${WRITER})
expect_variable(${pcdir} includedir /usr/include)
expect_variable(${pcdir} libdir /usr/lib/${triplet})
set(SYSROOT ${multi})
check_layout(usr-multiarch ${pcdir} ${multi} ${multi}/usr/lib/${triplet})

# 3. the same tree with a relocatable .pc for /opt/infinirt and the multiarch libdir
run(${CMAKE_COMMAND} -DPC_PREFIX=/opt/infinirt -DPC_LIBDIR=lib/${triplet} -DPC_INCLUDEDIR=include
    -DPC_VERSION=${VERSION} -DPC_FILE=${pcdir}/infinirt.pc -P ${WRITER})
set(SYSROOT "")
check_layout(opt-multiarch ${pcdir} ${multi}/usr ${multi}/usr/lib/${triplet})

# 4. a relocatable prefix, installed, then moved
set(opt ${WORK_DIR}/opt/infinirt)
run(${CMAKE_COMMAND} --install ${INFINIRT_BUILD_DIR} --prefix ${opt})
file(STRINGS ${opt}/${LIBDIR}/pkgconfig/infinirt.pc prefix_line REGEX "^prefix=")
if(NOT prefix_line MATCHES "^prefix=\\$\\{pcfiledir\\}/")
  message(FATAL_ERROR "an /opt-style install should write a relocatable prefix, not ${prefix_line}")
endif()
check_layout(opt ${opt}/${LIBDIR}/pkgconfig ${opt} ${opt}/${LIBDIR})
set(moved ${WORK_DIR}/moved/infinirt)
file(MAKE_DIRECTORY ${WORK_DIR}/moved)
file(RENAME ${opt} ${moved})
check_layout(opt-moved ${moved}/${LIBDIR}/pkgconfig ${moved} ${moved}/${LIBDIR})
file(REMOVE_RECURSE ${WORK_DIR})
