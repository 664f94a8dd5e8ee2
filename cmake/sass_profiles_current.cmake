# kernels.sass-profiles-current: each family's SASS profile, made again from
# the build's object files, equals the committed one. Skips (exit 77) without
# nvdisasm. Variables: AGPU, NVDISASM, OBJECTS, FAMILIES, SRC, OUT.
if(NOT NVDISASM OR NOT EXISTS "${NVDISASM}")
  message("skipped: no nvdisasm (scripts/setup.sh --tests installs one)")
  cmake_language(EXIT 77)
endif()
file(MAKE_DIRECTORY ${OUT})
set(stale)
foreach(family IN LISTS FAMILIES)
  set(objects)
  foreach(o IN LISTS OBJECTS)
    if(o MATCHES "/${family}/")
      list(APPEND objects ${o})
    endif()
  endforeach()
  execute_process(COMMAND ${AGPU} sass import --cubin ${objects} --out ${OUT}/${family}.sass.json
                          --nvdisasm ${NVDISASM} --source-root ${SRC}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "agpu sass import for ${family} failed: ${err}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/${family}.sass.json
                          ${SRC}/kernels/${family}/sm_90.sass.json RESULT_VARIABLE same)
  if(NOT same EQUAL 0)
    list(APPEND stale "kernels/${family}/sm_90.sass.json")
  endif()
endforeach()
if(stale)
  message(FATAL_ERROR "the kernels' machine code changed: ${stale} no longer match it "
                      "(cmake --build --preset release --target sass-profiles writes them anew; commit them)")
endif()
message("every SASS profile matches the build's kernels")
