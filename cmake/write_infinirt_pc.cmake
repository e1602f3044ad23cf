# Writes infinirt.pc for an install prefix; run at install time (so that `cmake --install
# --prefix` and DESTDIR count) and by tests/loader/pkg_config_test.cmake.
# Inputs: PC_PREFIX (the prefix as the installed system sees it), PC_LIBDIR and PC_INCLUDEDIR
# (CMAKE_INSTALL_LIBDIR / INCLUDEDIR: relative to the prefix, or absolute), PC_VERSION, PC_FILE
# (the file to write, DESTDIR included).
#
# - Prefix /usr: absolute paths (prefix=/usr), as Debian's own .pc files have them, so that
#   pkg-config recognises its system directories (-I/usr/include, -L/usr/lib/<multiarch>) and
#   leaves them out.
# - Any other prefix (/opt/infinirt, a home directory): relocatable, the prefix found from the
#   .pc file's own folder (${pcfiledir} and as many ".." as the libdir has parts, plus one for
#   pkgconfig/), so that moving the whole tree keeps it right.
# - An absolute libdir or includedir is written as given.
foreach(var PC_PREFIX PC_LIBDIR PC_INCLUDEDIR PC_VERSION PC_FILE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "write_infinirt_pc.cmake: ${var} is required")
  endif()
endforeach()

string(REGEX REPLACE "/+$" "" _prefix "${PC_PREFIX}")
if(_prefix STREQUAL "")
  set(_prefix "/")
endif()
if(IS_ABSOLUTE "${PC_LIBDIR}" OR _prefix STREQUAL "/usr")
  set(_prefix_line "prefix=${_prefix}")
else()
  # From <prefix>/<libdir>/pkgconfig back to <prefix>, whatever the prefix.
  file(RELATIVE_PATH _up "/infinirt-prefix/${PC_LIBDIR}/pkgconfig" "/infinirt-prefix")
  set(_prefix_line "prefix=\${pcfiledir}/${_up}")
endif()
if(IS_ABSOLUTE "${PC_LIBDIR}")
  set(_libdir "${PC_LIBDIR}")
else()
  set(_libdir "\${prefix}/${PC_LIBDIR}")
endif()
if(IS_ABSOLUTE "${PC_INCLUDEDIR}")
  set(_includedir "${PC_INCLUDEDIR}")
else()
  set(_includedir "\${prefix}/${PC_INCLUDEDIR}")
endif()

file(WRITE "${PC_FILE}" "${_prefix_line}
libdir=${_libdir}
includedir=${_includedir}
plugindir=\${libdir}/infinirt

Name: infinirt
Description: Hardware abstraction layer for accelerators (C ABI, plugin backends)
Version: ${PC_VERSION}
Libs: -L\${libdir} -linfinirt
Cflags: -I\${includedir}
")
