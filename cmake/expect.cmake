# Runs ${AGPU} ${ARGS} in ${WORKDIR}; fails unless the exit status is ${EXIT} and
# stderr/stdout match the given regular expressions (empty: not checked).
execute_process(COMMAND ${AGPU} ${ARGS} WORKING_DIRECTORY ${WORKDIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(problems "")
if(NOT "${rc}" STREQUAL "${EXIT}")
  string(APPEND problems "exit status ${rc}, expected ${EXIT}\n")
endif()
if(NOT "${STDERR}" STREQUAL "" AND NOT err MATCHES "${STDERR}")
  string(APPEND problems "stderr does not match /${STDERR}/\n")
endif()
if(NOT "${STDOUT}" STREQUAL "" AND NOT out MATCHES "${STDOUT}")
  string(APPEND problems "stdout does not match /${STDOUT}/\n")
endif()
if(NOT problems STREQUAL "")
  message(FATAL_ERROR "agpu ${ARGS}\n${problems}--- stdout:\n${out}\n--- stderr:\n${err}")
endif()
