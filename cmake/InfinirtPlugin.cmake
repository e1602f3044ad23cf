# infinirt_add_plugin(<name> SOURCES <src>... [LIBRARIES <lib>...])
#
# Builds libinfinirt-<name>.so as a module that exports only the plugin entry symbol, places it
# in the plugin directory of the build tree (next to libinfinirt) and installs it into
# <libdir>/infinirt. Usable in the infinirt tree and, through find_package(infinirt), by a
# vendor's own project.
include(GNUInstallDirs)
set(_INFINIRT_PLUGIN_MAP "${CMAKE_CURRENT_LIST_DIR}/infinirt_plugin.map")
function(infinirt_add_plugin name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  set(target infinirt-${name})
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
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(DEFINED INFINIRT_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${INFINIRT_PLUGIN_OUTPUT_DIR})
  endif()
  if(NOT APPLE)
    target_link_options(${target} PRIVATE -Wl,--no-undefined -Wl,--version-script=${_INFINIRT_PLUGIN_MAP})
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${_INFINIRT_PLUGIN_MAP})
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/infinirt)
endfunction()
