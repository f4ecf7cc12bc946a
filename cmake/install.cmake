# Install rules: libraries, headers, CLI (with its man page and shell completions),
# the example model, a relocatable pkg-config file and a relocatable CMake package.
# Every path written into an installed file is relative to that file, so the tree
# works after it is moved (tests/cli/test_downstream.sh installs, moves and builds).
include(CMakePackageConfigHelpers)

set(TP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tensorplan)
install(TARGETS tensorplan tensorplan_static tensorplan_shared EXPORT tensorplanTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/tensorplan.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/tensorplan DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES examples/models/mobilenet_v2.onnx
  DESTINATION ${CMAKE_INSTALL_DATADIR}/tensorplan/examples)
if(TARGET tensorplan_cli_docs)
  install(FILES ${PROJECT_BINARY_DIR}/tensorplan.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${PROJECT_BINARY_DIR}/tensorplan.bash
    DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME tensorplan)
  install(FILES ${PROJECT_BINARY_DIR}/_tensorplan
    DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
endif()

# pkg-config: the prefix is found from the .pc file's own directory (${pcfiledir}),
# e.g. lib/pkgconfig -> ../.. or lib/x86_64-linux-gnu/pkgconfig -> ../../..
file(RELATIVE_PATH TP_PC_TO_PREFIX /tp-prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /tp-prefix)
string(REGEX REPLACE "/$" "" TP_PC_TO_PREFIX "${TP_PC_TO_PREFIX}")
set(TP_PC_LIBDIR ${CMAKE_INSTALL_LIBDIR})
set(TP_PC_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
if(IS_ABSOLUTE "${TP_PC_LIBDIR}")
  file(RELATIVE_PATH TP_PC_LIBDIR ${CMAKE_INSTALL_PREFIX} ${TP_PC_LIBDIR})
endif()
if(IS_ABSOLUTE "${TP_PC_INCLUDEDIR}")
  file(RELATIVE_PATH TP_PC_INCLUDEDIR ${CMAKE_INSTALL_PREFIX} ${TP_PC_INCLUDEDIR})
endif()
configure_file(cmake/tensorplan.pc.in ${PROJECT_BINARY_DIR}/tensorplan.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tensorplan.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# CMake package: find_package(tensorplan [0.1]) gives tensorplan::tensorplan (shared),
# tensorplan::tensorplan_static and tensorplan::cli; any 0.x asks for the same major.
install(EXPORT tensorplanTargets NAMESPACE tensorplan:: DESTINATION ${TP_CMAKE_DIR})
configure_package_config_file(cmake/tensorplanConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tensorplanConfig.cmake INSTALL_DESTINATION ${TP_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tensorplanConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tensorplanConfig.cmake
  ${PROJECT_BINARY_DIR}/tensorplanConfigVersion.cmake DESTINATION ${TP_CMAKE_DIR})

include(cmake/package.cmake)
