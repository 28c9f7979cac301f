# The installable package: `cmake --install BUILD --prefix PREFIX` puts
#   PREFIX/bin/xtune                      the CLI
#   PREFIX/libexec/xtune/xtune_*_worker   its worker programs (found from
#                                         the CLI's and the library's place)
#   PREFIX/lib/libxtune.so                the C++ API (include/xtune), all of
#                                         xtune linked in
#   PREFIX/include/xtune/*.h              its headers
#   PREFIX/lib/cmake/xtune/               the CMake package: find_package(xtune
#                                         CONFIG REQUIRED) gives xtune::xtune
#                                         and xtune_add_test
#                                         (XtuneTesting.cmake)
include(CMakePackageConfigHelpers)

add_library(xtune_shared SHARED ${PROJECT_SOURCE_DIR}/compiler/api.cc)
target_include_directories(xtune_shared PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_include_directories(xtune_shared PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(xtune_shared
  PUBLIC absl::status absl::statusor absl::strings absl::time
  PRIVATE xtune_compiler)
set_target_properties(xtune_shared PROPERTIES OUTPUT_NAME xtune EXPORT_NAME xtune
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
add_library(xtune::xtune ALIAS xtune_shared)

install(TARGETS xtune_shared EXPORT xtuneTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/xtune
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(xtune_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/xtune)
install(EXPORT xtuneTargets NAMESPACE xtune:: DESTINATION ${xtune_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/xtuneConfig.cmake.in
  ${PROJECT_BINARY_DIR}/xtuneConfig.cmake INSTALL_DESTINATION ${xtune_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/xtuneConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/xtuneConfig.cmake
              ${PROJECT_BINARY_DIR}/xtuneConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/XtuneTesting.cmake
  DESTINATION ${xtune_cmake_dir})
