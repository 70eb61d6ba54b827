# cmake -DSIGTOOL=... -DARGS=... -P expect_drift.cmake
# Runs gpuops_sigtool --check on a fatbin whose kernel changed: it must exit 1 and print a diff
# that shows the old and the new parameter list.
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${SIGTOOL} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "gpuops_sigtool said:\n${err}${out}")
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected exit code 1 (drift), got ${rc}")
endif()
if(NOT err MATCHES "- drift_probe sm_80,sm_90a out:0:8 n:8:4\n\\+ drift_probe sm_80,sm_90a out:0:8 n:8:4 value:12:4")
  message(FATAL_ERROR "the drift message lacks the expected diff")
endif()
