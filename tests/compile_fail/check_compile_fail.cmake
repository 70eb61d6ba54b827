# cmake -DCXX=... -DSOURCE=... -DFLAGS=... -P check_compile_fail.cmake
# Case 0 of SOURCE must compile; cases 1..5 must each fail with the diagnostic listed below.
# A case that compiles, or fails for another reason, fails the test.
separate_arguments(flag_list UNIX_COMMAND "${FLAGS}")
set(expected_0 "")
set(expected_1 "cannot convert|no matching|could not convert")
set(expected_2 "cannot convert|could not convert|no viable conversion")
set(expected_3 "narrowing")
set(expected_4 "incomplete type")
set(expected_5 "private")
foreach(case RANGE 0 5)
  execute_process(
    COMMAND ${CXX} ${flag_list} -fsyntax-only -DGPUOPS_CASE=${case} ${SOURCE}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(case EQUAL 0)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "case 0 (correct use) does not compile:\n${err}")
    endif()
  else()
    if(rc EQUAL 0)
      message(FATAL_ERROR "case ${case} compiled but must not")
    endif()
    if(NOT err MATCHES "${expected_${case}}")
      message(FATAL_ERROR "case ${case} failed without '${expected_${case}}':\n${err}")
    endif()
    message(STATUS "case ${case}: refused at compile time as expected")
  endif()
endforeach()
