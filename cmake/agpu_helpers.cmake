# Warnings for every agpu target; host code only (nvcc gets its own flags).
function(agpu_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
    # GCC 12 reports std::string concatenation falsely (GCC bug 105329)
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-restrict>)
endfunction()

# agpu_test(NAME SOURCES... LIBS ... [LABELS ...] [ONE_PROCESS SUITE...]): a
# GoogleTest program beside the code it tests, each of its tests a CTest test.
# A suite named in ONE_PROCESS is one CTest test of that name instead, its
# tests run in one process: for tests that share one costly computation (a
# function-local static), which each process would otherwise redo.
function(agpu_test name)
  if(NOT AGPU_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS;ONE_PROCESS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  # Kernels are found by their symbols (sim/sass_profiles.hpp: cuda_symbol_of).
  set_target_properties(${name} PROPERTIES ENABLE_EXPORTS ON)
  agpu_warnings(${name})
  set(labels unit ${T_LABELS})
  set(suites "")
  foreach(suite ${T_ONE_PROCESS})
    add_test(NAME ${suite} COMMAND ${name} --gtest_filter=${suite}.*)
    # A filter that selects nothing passes in GoogleTest: fail instead.
    set_tests_properties(${suite} PROPERTIES LABELS "${labels}" FAIL_REGULAR_EXPRESSION "Running 0 tests")
    list(APPEND suites ${suite}.*)
  endforeach()
  set(filter "")
  if(suites)
    list(JOIN suites ":" filter)
    set(filter "-${filter}")
  endif()
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST TEST_FILTER "${filter}" PROPERTIES LABELS "${labels}")
endfunction()

# agpu_cli_test(NAME EXIT STATUS [STDERR regex] [STDOUT regex] [SETUP fixture] [REQUIRES fixture] COMMAND args...):
# runs the agpu program and checks its exit status and output; SETUP makes
# it the fixture's setup, REQUIRES runs it after that fixture's setup.
function(agpu_cli_test name)
  if(NOT AGPU_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(T "" "EXIT;STDERR;STDOUT;SETUP;REQUIRES" "COMMAND" ${ARGN})
  add_test(NAME cli.${name}
           COMMAND ${CMAKE_COMMAND} -DAGPU=$<TARGET_FILE:agpu> "-DARGS=${T_COMMAND}" -DEXIT=${T_EXIT}
                   "-DSTDERR=${T_STDERR}" "-DSTDOUT=${T_STDOUT}" -DWORKDIR=${CMAKE_CURRENT_SOURCE_DIR}
                   -P ${PROJECT_SOURCE_DIR}/cmake/expect.cmake)
  set_tests_properties(cli.${name} PROPERTIES LABELS "cli" FIXTURES_SETUP "${T_SETUP}" FIXTURES_REQUIRED "${T_REQUIRES}")
endfunction()

# CUDA sources: line info for the profilers and the SASS comparison.
function(agpu_cuda_target target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -lineinfo>)
endfunction()
