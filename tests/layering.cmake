# The layer rule of CONTRIBUTING.md "Layers", checked on every #include "..." of src/ and proofs/
# (and the detail/ rule on bench/ and properties/, below):
#  - a file may include its own folder, or a folder on a lower layer, never one on its own layer
#    or above (layers point down only);
#  - no file includes another folder's detail/ (a folder's detail/ is private to it).
# Run: cmake -DSOURCE_DIR=<checkout> -P tests/layering.cmake (ctest: layering.includes_point_down).
# Prints every violation as "file:line: includes X (layer of A > ... )" and fails if there is one.

# Layer of each folder of src/ (and proofs/), lowest first: band N may include bands < N only. A
# new folder must be added here: an unknown folder is itself a violation, so the table cannot
# silently fall behind the tree.
set(_band0 io)
set(_band1 numeric cpu)
set(_band2 spectrum statistics certificate rotation)
set(_band3 kernel random attention claims)
set(_band4 accuracy proofs montecarlo)
set(_band5 finite adversarial)
set(_band6 usage)
set(_band7 report)
set(_band8 cli python)
foreach(_i RANGE 0 8)
  foreach(_folder IN LISTS _band${_i})
    set(_level_of_${_folder} ${_i})
  endforeach()
endforeach()

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "layering.cmake: pass -DSOURCE_DIR=<the checkout>")
endif()

file(GLOB_RECURSE _files RELATIVE "${SOURCE_DIR}"
  "${SOURCE_DIR}/src/*.h" "${SOURCE_DIR}/src/*.cpp" "${SOURCE_DIR}/proofs/*.h" "${SOURCE_DIR}/proofs/*.cpp")
list(SORT _files)

# The folder a path names: proofs/x -> proofs, src/a/b -> a, and for an include "a/b.h" -> a.
function(_folder_of path out)
  if(path MATCHES "^proofs/")
    set(${out} proofs PARENT_SCOPE)
  elseif(path MATCHES "^src/([^/]+)/")
    set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
  elseif(path MATCHES "^([^/]+)/")
    set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

# The quoted includes of a file: `out_lines` their line numbers, `out_includes` what they name (one
# list each, in order); counts them in _checked.
function(_includes_of file out_lines out_includes)
  file(STRINGS "${SOURCE_DIR}/${file}" _lines)
  set(_numbers "")
  set(_names "")
  set(_n 0)
  foreach(_line IN LISTS _lines)
    math(EXPR _n "${_n} + 1")
    if(_line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\"")
      list(APPEND _numbers ${_n})
      list(APPEND _names "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  list(LENGTH _names _count)
  math(EXPR _total "${_checked} + ${_count}")
  set(_checked ${_total} PARENT_SCOPE)
  set(${out_lines} ${_numbers} PARENT_SCOPE)
  set(${out_includes} ${_names} PARENT_SCOPE)
endfunction()

set(_violations "")
set(_checked 0)
foreach(_file IN LISTS _files)
  _folder_of("${_file}" _from)
  if(NOT DEFINED _level_of_${_from})
    list(APPEND _violations "${_file}: its folder '${_from}' has no layer in tests/layering.cmake")
    continue()
  endif()
  _includes_of("${_file}" _line_numbers _includes)
  foreach(_line_number _include IN ZIP_LISTS _line_numbers _includes)
    _folder_of("${_include}" _to)
    if(_to STREQUAL "")
      continue()  # a file of the same folder, named without its folder
    endif()
    if(_include MATCHES "(^|/)detail/" AND NOT _to STREQUAL _from)
      list(APPEND _violations "${_file}:${_line_number}: includes ${_include}, another folder's detail/")
      continue()
    endif()
    if(_to STREQUAL _from)
      continue()
    endif()
    if(NOT DEFINED _level_of_${_to})
      list(APPEND _violations "${_file}:${_line_number}: includes ${_include} from folder '${_to}', which has no layer")
      continue()
    endif()
    if(NOT _level_of_${_to} LESS _level_of_${_from})
      list(APPEND _violations
        "${_file}:${_line_number}: includes ${_include} (${_from} is on layer ${_level_of_${_from}}, ${_to} on layer ${_level_of_${_to}}: layers point down only)")
    endif()
  endforeach()
endforeach()

# bench/ and properties/ sit above every layer (they may include any folder's public headers) but
# keep the detail/ rule, without exceptions (the kernel benchmark reaches the floor through the
# kernel's public seam kernel/floor.h).
file(GLOB_RECURSE _top_files RELATIVE "${SOURCE_DIR}"
  "${SOURCE_DIR}/bench/*.h" "${SOURCE_DIR}/bench/*.cpp" "${SOURCE_DIR}/properties/*.h" "${SOURCE_DIR}/properties/*.cpp")
list(SORT _top_files)
foreach(_file IN LISTS _top_files)
  _includes_of("${_file}" _line_numbers _includes)
  foreach(_line_number _include IN ZIP_LISTS _line_numbers _includes)
    if(NOT _include MATCHES "^([^/]+/)+detail/")
      continue()
    endif()
    list(APPEND _violations "${_file}:${_line_number}: includes ${_include}, a folder's private detail/")
  endforeach()
endforeach()
list(APPEND _files ${_top_files})

list(LENGTH _files _count)
if(_violations)
  list(LENGTH _violations _n)
  string(REPLACE ";" "\n  " _text "${_violations}")
  message(FATAL_ERROR "layering: ${_n} violation(s) in ${_count} files:\n  ${_text}")
endif()
message(STATUS "layering: ${_count} files, ${_checked} includes, every one points down")
