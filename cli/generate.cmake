# SPDX-License-Identifier: MIT
# Build-time generation for mcpc, run with cmake -P:
#   -DMODE=man        -DSCDOC=... -DIN=docs/mcpc.1.scd -DOUT=mcpc.1
#   -DMODE=completion -DMCPC=... -DSHELL_NAME=bash|zsh -DOUT=file
#   -DMODE=embed -DIN=schema.json -DSYMBOL=name -DOUT=file.c (a C array of
#   the file's bytes plus its length; an absent IN gives an empty array)
# (execute_process, because a redirection in add_custom_command is not
# portable between generators).
if(MODE STREQUAL "man")
  execute_process(COMMAND ${SCDOC} INPUT_FILE ${IN} OUTPUT_FILE ${OUT}
                  RESULT_VARIABLE rc)
elseif(MODE STREQUAL "completion")
  execute_process(COMMAND ${MCPC} completion ${SHELL_NAME} OUTPUT_FILE ${OUT}
                  RESULT_VARIABLE rc)
elseif(MODE STREQUAL "embed")
  set(hex "")
  if(EXISTS ${IN})
    file(READ ${IN} hex HEX)
  endif()
  string(LENGTH "${hex}" n)
  math(EXPR bytes "${n} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
  string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
  file(WRITE ${OUT} "/* SPDX-License-Identifier: MIT */\n/* generated from ${IN} */\n#include <stddef.h>\nconst unsigned char ${SYMBOL}[] = {${body}0};\nconst size_t ${SYMBOL}_len = ${bytes};\n")
  set(rc 0)
else()
  message(FATAL_ERROR "generate.cmake: unknown MODE '${MODE}'")
endif()
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT})
  message(FATAL_ERROR "generate.cmake: ${MODE} for ${OUT} failed: ${rc}")
endif()
