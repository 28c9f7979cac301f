# xtune_add_test: a GoogleTest using xtune's C++ API (include/xtune), run by
# CTest with XLA_FLAGS set the way XLA's test suites set them, so the test
# loads a checked-in autotune cache instead of tuning.
#
# Include it after add_subdirectory() of xtune (which defines the
# xtune_compiler library), then:
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
#   UNDECLARED_OUTPUTS_DIR dir
#                        sets TEST_UNDECLARED_OUTPUTS_DIR (created)
#   ENVIRONMENT VAR=v... more environment (e.g. TEST_SRCDIR, TEST_WORKSPACE)
#   WORKING_DIRECTORY, LABELS, FIXTURES_SETUP, FIXTURES_REQUIRED: as CTest's
#
# With -DXTUNE_UPDATE_AUTOTUNE_CACHES=ON every AUTOTUNE_CACHE is dumped into
# (merge mode) instead of loaded: delete or prune the file, run the suite,
# check the file in (the regenerate step of docs/persistent_autotuning.md).
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
    target_link_libraries(${exe} PRIVATE xtune_compiler ${T_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
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
  set(env "XLA_FLAGS=${flags_text}" ${T_ENVIRONMENT})
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
  foreach(prop LABELS FIXTURES_SETUP FIXTURES_REQUIRED)
    if(T_${prop})
      set_tests_properties(${T_NAME} PROPERTIES ${prop} "${T_${prop}}")
    endif()
  endforeach()
endfunction()
