# SPDX-License-Identifier: MIT
# Build-time generation for mcpc, run with cmake -P:
#   -DMODE=man        -DSCDOC=... -DIN=docs/mcpc.1.scd -DOUT=mcpc.1
#   -DMODE=completion -DMCPC=... -DSHELL_NAME=bash|zsh -DOUT=file
# (execute_process, because a redirection in add_custom_command is not
# portable between generators).
if(MODE STREQUAL "man")
  execute_process(COMMAND ${SCDOC} INPUT_FILE ${IN} OUTPUT_FILE ${OUT}
                  RESULT_VARIABLE rc)
elseif(MODE STREQUAL "completion")
  execute_process(COMMAND ${MCPC} completion ${SHELL_NAME} OUTPUT_FILE ${OUT}
                  RESULT_VARIABLE rc)
else()
  message(FATAL_ERROR "generate.cmake: unknown MODE '${MODE}'")
endif()
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT})
  message(FATAL_ERROR "generate.cmake: ${MODE} for ${OUT} failed: ${rc}")
endif()
