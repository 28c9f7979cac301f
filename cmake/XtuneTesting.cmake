# xtune_add_test: a GoogleTest using xtune's C++ API (include/xtune), run by
# CTest with XLA_FLAGS set the way XLA's test suites set them, so the test
# loads a checked-in autotune cache instead of tuning.
#
# Include it after add_subdirectory() of xtune (which defines the
# xtune_compiler library), or get it from find_package(xtune CONFIG
# REQUIRED) with an installed xtune (linking xtune::xtune), then:
#
#   xtune_add_test(NAME my_model_test
#                  SRCS my_model_test.cc          # or TARGET an_existing_test
#                  AUTOTUNE_CACHE ${CMAKE_CURRENT_SOURCE_DIR}/autotune_cache.textproto)
#
# Arguments (all optional but NAME and SRCS/TARGET):
#   SRCS / DEPS          sources and extra libraries of a new test executable
#                        (linked with xtune_compiler and GoogleTest's main)
#   TARGET               run an executable target defined elsewhere instead
#   ARGS                 command-line arguments (e.g. --gtest_filter=...)
#   AUTOTUNE_CACHE file  --xla_gpu_load_autotune_results_from=file; relative
#                        paths are relative to WORKING_DIRECTORY, and the
#                        prefixes TEST_WORKSPACE/ and
#                        TEST_UNDECLARED_OUTPUTS_DIR/ work as in XLA
#   DUMP_AUTOTUNE_CACHE file
#                        --xla_gpu_dump_autotune_results_to=file with
#                        --xtune_dump_autotune_results_merge, so tests run in
#                        parallel all add their entries to one file
#   XLA_FLAGS flag...    more flags for XLA_FLAGS
#
# The helper's flags are appended to the XLA_FLAGS the caller exported
# (CTest's ENVIRONMENT_MODIFICATION), never replacing it, so CI can add
# flags to every test:
#   XLA_FLAGS=--xla_gpu_require_complete_aot_autotune_results ctest
#   UNDECLARED_OUTPUTS_DIR dir
#                        sets TEST_UNDECLARED_OUTPUTS_DIR (created)
#   ENVIRONMENT VAR=v... more environment (e.g. TEST_SRCDIR, TEST_WORKSPACE)
#   WORKING_DIRECTORY, LABELS, FIXTURES_SETUP, FIXTURES_REQUIRED: as CTest's
#
# With -DXTUNE_UPDATE_AUTOTUNE_CACHES=ON every AUTOTUNE_CACHE is dumped into
# (merge mode) instead of loaded: delete or prune the file, run the suite,
# check the file in (the regenerate step of docs/persistent_autotuning.md).
# The tests see XTUNE_UPDATE_AUTOTUNE_CACHES=1 then (0 otherwise), which
# xtune::testing::UpdatingAutotuneCaches() in xtune/testing.h reads, so they
# can skip "nothing was tuned" checks while regenerating.
if(CMAKE_VERSION VERSION_LESS 3.22)
  message(FATAL_ERROR "XtuneTesting.cmake needs CMake 3.22 or newer "
                      "(ENVIRONMENT_MODIFICATION keeps the caller's XLA_FLAGS)")
endif()
option(XTUNE_UPDATE_AUTOTUNE_CACHES
       "xtune_add_test: tune and write AUTOTUNE_CACHE files instead of loading them" OFF)

function(xtune_add_test)
  cmake_parse_arguments(T ""
    "NAME;TARGET;AUTOTUNE_CACHE;DUMP_AUTOTUNE_CACHE;UNDECLARED_OUTPUTS_DIR;WORKING_DIRECTORY"
    "SRCS;DEPS;ARGS;XLA_FLAGS;ENVIRONMENT;LABELS;FIXTURES_SETUP;FIXTURES_REQUIRED"
    ${ARGN})
  if(NOT T_NAME)
    message(FATAL_ERROR "xtune_add_test: NAME is required")
  endif()
  if(T_TARGET)
    set(exe ${T_TARGET})
  elseif(T_SRCS)
    set(exe ${T_NAME})
    add_executable(${exe} ${T_SRCS})
    # In xtune's own tree its static libraries; from an installed package
    # (find_package(xtune)) the shared xtune::xtune.
    if(TARGET xtune_compiler)
      set(xtune_lib xtune_compiler)
    else()
      set(xtune_lib xtune::xtune)
      find_package(GTest REQUIRED)
    endif()
    target_link_libraries(${exe} PRIVATE ${xtune_lib} ${T_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  else()
    message(FATAL_ERROR "xtune_add_test(${T_NAME}): give SRCS or TARGET")
  endif()
  set(flags ${T_XLA_FLAGS})
  if(T_AUTOTUNE_CACHE)
    if(XTUNE_UPDATE_AUTOTUNE_CACHES)
      list(APPEND flags "--xla_gpu_dump_autotune_results_to='${T_AUTOTUNE_CACHE}'"
                        "--xtune_dump_autotune_results_merge")
    else()
      list(APPEND flags "--xla_gpu_load_autotune_results_from='${T_AUTOTUNE_CACHE}'")
    endif()
  endif()
  if(T_DUMP_AUTOTUNE_CACHE)
    list(APPEND flags "--xla_gpu_dump_autotune_results_to='${T_DUMP_AUTOTUNE_CACHE}'"
                      "--xtune_dump_autotune_results_merge")
  endif()
  # Paths are quoted ('...'), so they may hold spaces; XLA_FLAGS parsers
  # (XLA's and xtune's) take quoted values.
  list(JOIN flags " " flags_text)
  if(XTUNE_UPDATE_AUTOTUNE_CACHES)
    set(env "XTUNE_UPDATE_AUTOTUNE_CACHES=1" ${T_ENVIRONMENT})
  else()
    set(env "XTUNE_UPDATE_AUTOTUNE_CACHES=0" ${T_ENVIRONMENT})
  endif()
  if(T_UNDECLARED_OUTPUTS_DIR)
    file(MAKE_DIRECTORY ${T_UNDECLARED_OUTPUTS_DIR})
    list(APPEND env "TEST_UNDECLARED_OUTPUTS_DIR=${T_UNDECLARED_OUTPUTS_DIR}")
  endif()
  if(T_WORKING_DIRECTORY)
    add_test(NAME ${T_NAME} COMMAND ${exe} ${T_ARGS} WORKING_DIRECTORY ${T_WORKING_DIRECTORY})
  else()
    add_test(NAME ${T_NAME} COMMAND ${exe} ${T_ARGS})
  endif()
  set_tests_properties(${T_NAME} PROPERTIES ENVIRONMENT "${env}")
  if(flags_text)
    # Appended after what the caller exported (a space keeps the tokens
    # apart; an unset XLA_FLAGS counts as empty).
    set_tests_properties(${T_NAME} PROPERTIES
      ENVIRONMENT_MODIFICATION "XLA_FLAGS=string_append: ${flags_text}")
  endif()
  foreach(prop LABELS FIXTURES_SETUP FIXTURES_REQUIRED)
    if(T_${prop})
      set_tests_properties(${T_NAME} PROPERTIES ${prop} "${T_${prop}}")
    endif()
  endforeach()
endfunction()
