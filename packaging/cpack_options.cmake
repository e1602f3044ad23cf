# Read by cpack (CPACK_PROJECT_CONFIG_FILE): the plugins are modules without a soname, which
# CPackDeb would warn about, one by one, when it writes DEBIAN/shlibs.
set(CMAKE_SUPPRESS_DEVELOPER_WARNINGS ON)
