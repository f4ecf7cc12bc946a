# Debian package: `cd build && cpack -G DEB` writes tensorplan_<version>_<arch>.deb with
# the libraries, headers, pkg-config file, CMake package, CLI, man page and completions,
# installed under /usr. Depends is computed by dpkg-shlibdeps (from dpkg-dev) from the
# binaries' ELF dependencies; the package also ships a shlibs file for libtensorplan.so.0.
set(CPACK_PACKAGE_NAME tensorplan)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "memory planning, estimates and cost models for ML graphs (library and CLI)")
set(CPACK_PACKAGE_DESCRIPTION
  "tensorplan plans the memory of ONNX and GGUF models before a weight is loaded: peak \
memory against budgets, tensor placement in an arena, latency on a device. This package \
holds the C library (shared and static), its headers, pkg-config and CMake files, and \
the tensorplan command-line tool with its man page and shell completions.")
set(CPACK_PACKAGE_CONTACT "tensorplan maintainers <tensorplan@invalid>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
find_program(TP_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(TP_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.34)")
endif()
# Loaded at run time (dlopen) when present: a BLAS for `tensorplan calibrate`'s CPU peak.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libopenblas0 | libblis4 | libblas3")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_GENERATOR DEB)
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES /\\.git/ /build.*/ /\\.fixtures)
include(CPack)
