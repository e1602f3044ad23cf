# Debian packages, made by CPack from the build tree (`cpack -G DEB`; scripts/packages.sh;
# docs/packaging.md). One package per install component:
#   runtime  -> libinfinirt<soversion>  libinfinirt, libinfinicore, libinfiniccl, the cpu plugins
#   dev      -> libinfinirt-dev         headers, CMake package, pkg-config, the unversioned .so links
#   tools    -> infinirt-tools          infinirt-info, -bench, -pack, the quickstart and saxpy, their data
#   python   -> python3-infinirt        the Python package (architecture-independent)
#   every other component a plugin was installed as (infinirt_add_plugin's COMPONENT, default
#   infinirt-plugin-<name>; infiniccl_add_plugin's, default infiniccl-plugin-<name>) -> a package of
#   that name, holding that one file in <libdir>/infinirt and its docs.
# Included at the end of the top-level CMakeLists.txt, once every plugin has said its component.
# The version is the project's (project(infinirt VERSION ...)), nothing else.

set(INFINIRT_PACKAGE_MAINTAINER "infinirt maintainers <maintainers@users.noreply.a-seed-5c71d9ac.example>"
  CACHE STRING "The Maintainer field of the Debian packages")
set(_runtime_package libinfinirt${PROJECT_VERSION_MAJOR})
set(_version ${PROJECT_VERSION})

get_property(_plugin_components GLOBAL PROPERTY INFINIRT_PLUGIN_COMPONENTS)
list(REMOVE_DUPLICATES _plugin_components)
list(REMOVE_ITEM _plugin_components runtime)
set(_components runtime dev tools python ${_plugin_components})
# An install() that names no component (CMake's "Unspecified") or one that no package takes would
# be installed by `cmake --install` yet missing from the packages: listed here, and
# scripts/packages.sh refuses to build packages while the list is not empty. python-prefix is
# left out on purpose (python/CMakeLists.txt).
get_cmake_property(_installed_components COMPONENTS)
set(_unpackaged "")
foreach(c IN LISTS _installed_components)
  if(NOT c IN_LIST _components AND NOT c STREQUAL "python-prefix")
    list(APPEND _unpackaged ${c})
  endif()
endforeach()
if(_unpackaged)
  message(WARNING "install components in no Debian package (cmake/InfinirtPackaging.cmake): ${_unpackaged}")
endif()
file(WRITE ${PROJECT_BINARY_DIR}/packaging/unpackaged-components "${_unpackaged}")

# Each package's docs: the copyright file and the changelog (a native package: changelog.gz),
# installed only by a component install (EXCLUDE_FROM_ALL: `cmake --install` leaves them out).
set(_doc_dir ${PROJECT_BINARY_DIR}/packaging)
string(TIMESTAMP _date "%a, %d %b %Y %H:%M:%S +0000" UTC) # SOURCE_DATE_EPOCH when set
file(WRITE ${_doc_dir}/changelog
"infinirt (${_version}) unstable; urgency=medium

  * Packages of infinirt ${_version}, made by CPack from the source tree
    (scripts/packages.sh; docs/packaging.md).

 -- ${INFINIRT_PACKAGE_MAINTAINER}  ${_date}
")
find_program(INFINIRT_GZIP gzip)
if(INFINIRT_GZIP)
  execute_process(COMMAND ${INFINIRT_GZIP} -9nc ${_doc_dir}/changelog
    OUTPUT_FILE ${_doc_dir}/changelog.gz RESULT_VARIABLE _gz)
else()
  set(_gz 1)
endif()
if(NOT _gz EQUAL 0)
  message(STATUS "gzip not found: the Debian packages (cpack -G DEB) will lack their changelog")
endif()

function(_infinirt_package_name component out)
  if(component STREQUAL "runtime")
    set(${out} ${_runtime_package} PARENT_SCOPE)
  elseif(component STREQUAL "dev")
    set(${out} libinfinirt-dev PARENT_SCOPE)
  elseif(component STREQUAL "tools")
    set(${out} infinirt-tools PARENT_SCOPE)
  elseif(component STREQUAL "python")
    set(${out} python3-infinirt PARENT_SCOPE)
  else()
    set(${out} ${component} PARENT_SCOPE)
  endif()
endfunction()

set(_same "${_runtime_package} (= ${_version})")
foreach(c IN LISTS _components)
  _infinirt_package_name(${c} pkg)
  string(TOUPPER ${c} C)
  set(CPACK_DEBIAN_${C}_PACKAGE_NAME ${pkg})
  set(docs ${PROJECT_SOURCE_DIR}/packaging/copyright)
  if(_gz EQUAL 0)
    list(APPEND docs ${_doc_dir}/changelog.gz)
  endif()
  install(FILES ${docs} DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${pkg} COMPONENT ${c} EXCLUDE_FROM_ALL)
  if(NOT c IN_LIST _plugin_components)
    continue()
  endif()
  # A plugin: the file libinfinirt-<name>.so or libinfiniccl-<name>.so.
  set(what "an infinirt plugin")
  if(c MATCHES "^infinirt-plugin-(.+)$")
    set(what "the ${CMAKE_MATCH_1} backend of infinirt\n(libinfinirt-${CMAKE_MATCH_1}.so)")
  elseif(c MATCHES "^infiniccl-plugin-(.+)$")
    set(what "the ${CMAKE_MATCH_1} backend of infiniccl, the collectives\n(libinfiniccl-${CMAKE_MATCH_1}.so)")
  endif()
  set(CPACK_DEBIAN_${C}_PACKAGE_DEPENDS "${_same}")
  set(CPACK_DEBIAN_${C}_PACKAGE_SECTION libs)
  set(CPACK_COMPONENT_${C}_DESCRIPTION
"portable accelerator runtime - plugin ${c}
This package drops ${what}
into the plugin directory of ${_runtime_package}:
/usr/${CMAKE_INSTALL_LIBDIR}/infinirt. The vendor's driver is loaded at run
time and is not a dependency: without it the backend is listed as
unavailable, with the reason. Removing this package removes the backend and
nothing else.")
endforeach()

set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
# The ldconfig trigger (activate-noawait ldconfig) that policy asks for. CPack also writes a postinst
# and postrm that call ldconfig, with no switch to leave them out (lintian's maintscript-calls-ldconfig
# warning; docs/packaging.md).
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/libinfinirt/triggers)
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
"portable accelerator runtime (C ABI) with its cpu backend
infinirt is a hardware abstraction layer for accelerators: one C ABI over
backends (cpu, CUDA, HIP, OpenCL, ...) that are plugins, loaded at run time
from /usr/${CMAKE_INSTALL_LIBDIR}/infinirt. This package holds libinfinirt, the
C++ context layer libinfinicore, the collectives library libinfiniccl, and the
cpu plugins of both; the other backends are packages of their own
(infinirt-plugin-*, infiniccl-plugin-*).")
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${_same}, infinirt-tools (= ${_version})")
set(CPACK_COMPONENT_DEV_DESCRIPTION
"portable accelerator runtime - development files
The headers of infinirt, infinicore and infiniccl, the CMake package
(find_package(infinirt), with infinirt_add_plugin for a backend of one's own),
the pkg-config file infinirt.pc and the unversioned library links.")
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "${_same}")
# infinirt-bench --plot runs share/infinirt/infinirt-bench-plot.py with python3 and matplotlib.
set(CPACK_DEBIAN_TOOLS_PACKAGE_SUGGESTS "python3, python3-matplotlib")
set(CPACK_COMPONENT_TOOLS_DESCRIPTION
"portable accelerator runtime - tools and examples
infinirt-info lists the backends and devices; infinirt-bench measures bandwidth
and latency beside the native API; infinirt-pack writes module files. Also
the quickstart and saxpy examples, with their module files.")
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3, ${_same}")
set(CPACK_DEBIAN_PYTHON_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SUGGESTS python3-numpy)
# prerm: removes the byte code python3 wrote beside the files (as dh_python3's does).
set(CPACK_DEBIAN_PYTHON_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/python3-infinirt/prerm)
set(CPACK_COMPONENT_PYTHON_DESCRIPTION
"portable accelerator runtime - Python 3 package
The infinirt Python package (pure Python over ctypes): devices, memory,
streams, modules and kernels of every backend installed. It finds
libinfinirt.so.${PROJECT_VERSION_MAJOR} on the system search path.")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME infinirt)
set(CPACK_PACKAGE_VERSION ${_version})
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_COMPONENTS_ALL ${_components})
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_VERSION ${_version})
set(CPACK_DEBIAN_PACKAGE_SOURCE infinirt)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${INFINIRT_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libinfinirt.so.0, when a package's binary needs it, is found in the build tree (its package is
# named in Depends above; dpkg-shlibdeps, which cannot know it, is told to go on).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
# DEBIAN/shlibs: "libinfinirt 0 libinfinirt0 (>= <version>)", so that a package built against
# this one depends on this version or later.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
  OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
# DEBIAN/symbols for the runtime package: written by cpack (packaging/cpack_options.cmake) from these
# libraries with GNU nm.
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_SOURCE_DIR}/packaging/cpack_options.cmake)
set(CPACK_INFINIRT_SOURCE_DIR ${PROJECT_SOURCE_DIR})
set(CPACK_INFINIRT_SYMBOLS ${_doc_dir}/symbols)
set(CPACK_INFINIRT_SYMBOLS_LIBS "")
foreach(lib infinirt infinicore infiniccl)
  list(APPEND CPACK_INFINIRT_SYMBOLS_LIBS ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/lib${lib}.so.${PROJECT_VERSION_MAJOR})
endforeach()
set(CPACK_INFINIRT_NM "")
if(CMAKE_NM)
  execute_process(COMMAND ${CMAKE_NM} --version OUTPUT_VARIABLE _nm_version ERROR_QUIET)
  if(_nm_version MATCHES "GNU nm")
    set(CPACK_INFINIRT_NM ${CMAKE_NM})
  endif()
endif()
include(CPack)
