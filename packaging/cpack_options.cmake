# Read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE; cmake/InfinirtPackaging.cmake).
# The plugins are modules without a soname, which CPackDeb would warn about, one by one, when it
# writes DEBIAN/shlibs.
set(CMAKE_SUPPRESS_DEVELOPER_WARNINGS ON)
# DEBIAN/symbols of the runtime package, from the libraries as built (cmake/write_debian_symbols.cmake).
if(CPACK_GENERATOR STREQUAL "DEB" AND CPACK_INFINIRT_NM)
  include("${CPACK_INFINIRT_SOURCE_DIR}/cmake/write_debian_symbols.cmake")
  infinirt_write_debian_symbols("${CPACK_INFINIRT_SYMBOLS}" "${CPACK_INFINIRT_NM}" "${CPACK_DEBIAN_RUNTIME_PACKAGE_NAME}"
    "${CPACK_DEBIAN_DEV_PACKAGE_NAME}" "${CPACK_DEBIAN_PACKAGE_VERSION}"
    "${CPACK_INFINIRT_SOURCE_DIR}/packaging/symbols-baseline" ${CPACK_INFINIRT_SYMBOLS_LIBS})
  list(APPEND CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA "${CPACK_INFINIRT_SYMBOLS}")
endif()
