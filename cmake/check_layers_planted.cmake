# The layer check (check_layers.cmake) on trees made here: a clean tree
# passes, and each violation planted in it alone fails the check, which names
# the file and the include.
#
#   cmake -DCHECK=<check_layers.cmake> -DWORK=<scratch directory> -P cmake/check_layers_planted.cmake
cmake_minimum_required(VERSION 3.25)
if(NOT CHECK OR NOT WORK)
  message(FATAL_ERROR "check_layers_planted: pass -DCHECK=<check_layers.cmake> -DWORK=<scratch directory>")
endif()

set(tree "${WORK}/planted")
file(REMOVE_RECURSE "${tree}")

# A clean tree: a kernel body, its run header, a simulator registration, a
# suite, a model source, a simulator source, a report section.
file(WRITE "${tree}/kernels/layer/include/agpu/kl/kl.hpp" "#pragma once\n")
file(WRITE "${tree}/kernels/demo/demo.cuh" "#include \"agpu/kl/kl.hpp\"\n")
file(WRITE "${tree}/kernels/demo/demo_runs.hpp" "#include \"agpu/model/algorithm.hpp\"\n#include \"demo/demo.cuh\"\n")
file(WRITE "${tree}/kernels/demo/demo.sim.cpp" "#include \"agpu/sim/algorithms.hpp\"\n#include \"demo/demo_runs.hpp\"\n")
file(WRITE "${tree}/kernels/demo/demo.suite.cpp" "#include \"agpu/validate/suite.hpp\"\n")
file(WRITE "${tree}/model/src/demo.cpp" "#include \"agpu/model/closed_form.hpp\"\n#include \"demo.hpp\"\n")
file(WRITE "${tree}/model/src/demo.hpp" "#pragma once\n")
file(WRITE "${tree}/sim/src/demo.cpp" "#include \"agpu/kl/kl.hpp\"\n#include \"agpu/sim/executor.hpp\"\n")
file(WRITE "${tree}/reports/src/demo.cpp" "#include \"agpu/sim/algorithms.hpp\"\n#include \"agpu/validate/dataset.hpp\"\n")

function(run_check out_result out_output)
  execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${tree} -P ${CHECK}
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  set(${out_result} ${result} PARENT_SCOPE)
  set(${out_output} "${output}" PARENT_SCOPE)
endfunction()

run_check(result output)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "the clean tree failed the check:\n${output}")
endif()

# Each violation alone: file | include.
set(cases
  "kernels/demo/bad.cuh|agpu/sim/executor.hpp"
  "kernels/demo/more.cuh|agpu/errors.hpp"
  "kernels/demo/runs.cuh|demo/demo_runs.hpp"
  "kernels/demo/bad.sim.cpp|agpu/validate/suite.hpp"
  "kernels/demo/bad.suite.cpp|agpu/sim/executor.hpp"
  "kernels/demo/bad_runs.hpp|agpu/sim/executor.hpp"
  "kernels/layer/include/agpu/kl/bad.hpp|agpu/model/device.hpp"
  "model/src/bad.cpp|agpu/sim/executor.hpp"
  "sim/src/bad.cpp|demo/demo_runs.hpp"
  "sim/src/worse.cpp|agpu/validate/suite.hpp"
  "validate/src/bad.cpp|agpu/reports/report.hpp"
  "reports/src/bad.cpp|demo/demo_runs.hpp"
  "reports/src/worse.cpp|agpu/kl/kl.hpp")
foreach(case IN LISTS cases)
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 file)
  list(GET parts 1 include)
  file(WRITE "${tree}/${file}" "#include <vector>\n\n#include \"${include}\"\n")
  run_check(result output)
  file(REMOVE "${tree}/${file}")
  if(result EQUAL 0)
    message(FATAL_ERROR "the check passed with ${file} including \"${include}\":\n${output}")
  endif()
  string(FIND "${output}" "${file}: #include \"${include}\"" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the check failed with ${file} including \"${include}\" without naming them:\n${output}")
  endif()
endforeach()
list(LENGTH cases count)
message("check_layers_planted: the clean tree passes; each of ${count} planted violations fails, named")
