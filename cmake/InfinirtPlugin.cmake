# infinirt_add_plugin(<name> SOURCES <src>... [LIBRARIES <lib>...]
#                     [TARGET <target>] [OUTPUT_DIRECTORY <dir>] [NO_INSTALL] [COMPONENT <component>])
#
# Builds libinfinirt-<name>.so as a module that exports only the plugin entry symbol, places it
# in the plugin directory of the build tree (next to libinfinirt) and installs it into
# <libdir>/infinirt. Usable in the infinirt tree and, through find_package(infinirt), by a
# vendor's own project. TARGET names the CMake target (default infinirt-<name>); OUTPUT_DIRECTORY
# and NO_INSTALL keep a plugin out of the plugin directory and the install tree (the skeleton).
# COMPONENT is the install component (default infinirt-plugin-<name>): in the infinirt tree each
# component is a Debian package of that name (cmake/InfinirtPackaging.cmake, docs/packaging.md),
# so a new plugin is a package of its own with nothing more said.
include(GNUInstallDirs)
set(_INFINIRT_PLUGIN_MAP "${CMAKE_CURRENT_LIST_DIR}/infinirt_plugin.map")
function(infinirt_add_plugin name)
  cmake_parse_arguments(ARG "NO_INSTALL" "TARGET;OUTPUT_DIRECTORY;COMPONENT" "SOURCES;LIBRARIES" ${ARGN})
  set(target infinirt-${name})
  if(ARG_TARGET)
    set(target ${ARG_TARGET})
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  # The public headers and the header-only plugin-support layer (backends/common/).
  if(TARGET infinirt_plugin_support)
    target_link_libraries(${target} PRIVATE infinirt_plugin_support)
  else()
    target_link_libraries(${target} PRIVATE infinirt::plugin_support)
  endif()
  target_link_libraries(${target} PRIVATE ${ARG_LIBRARIES} ${CMAKE_DL_LIBS})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME infinirt-${name}
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  elseif(DEFINED INFINIRT_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${INFINIRT_PLUGIN_OUTPUT_DIR})
  endif()
  if(NOT APPLE)
    target_link_options(${target} PRIVATE -Wl,--no-undefined -Wl,--version-script=${_INFINIRT_PLUGIN_MAP})
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${_INFINIRT_PLUGIN_MAP})
  endif()
  if(NOT ARG_NO_INSTALL)
    if(NOT ARG_COMPONENT)
      set(ARG_COMPONENT infinirt-plugin-${name})
    endif()
    install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/infinirt COMPONENT ${ARG_COMPONENT})
    # The tree's packaging makes one package of each component named here.
    set_property(GLOBAL APPEND PROPERTY INFINIRT_PLUGIN_COMPONENTS ${ARG_COMPONENT})
  endif()
  # In the infinirt tree: infinirt-plugins builds every plugin of the build tree's plugin
  # directory and nothing else (scripts/test.sh's ThreadSanitizer stage).
  if(TARGET infinirt_plugin_support AND NOT ARG_OUTPUT_DIRECTORY)
    if(NOT TARGET infinirt-plugins)
      add_custom_target(infinirt-plugins)
    endif()
    add_dependencies(infinirt-plugins ${target})
  endif()
endfunction()
