# docs/claims.md quotes the reference report's summary table (reports/reference/claims-table.md)
# verbatim between its claims-table markers, so the verdicts a reader finds are the ones the
# committed report computed. After regenerating the reference (scripts/run --out reports/reference
# --force), paste the new claims-table.md between the markers
#   <!-- claims-table: begin -->
#   <!-- claims-table: end -->
# of docs/claims.md, and README.md's short summary after it (ctest docs.readme_claims_summary).
# Run: cmake -DCLAIMS=docs/claims.md -DTABLE=reports/reference/claims-table.md -P tests/docs/claims_table.cmake
foreach(input CLAIMS TABLE)
  if(NOT EXISTS "${${input}}")
    message(FATAL_ERROR "claims_table.cmake: -D${input}=<file> names no file ('${${input}}')")
  endif()
endforeach()
file(READ "${CLAIMS}" claims)
file(READ "${TABLE}" table)
set(begin_marker "<!-- claims-table: begin -->\n")
set(end_marker "<!-- claims-table: end -->")
string(FIND "${claims}" "${begin_marker}" begin_at)
string(FIND "${claims}" "${end_marker}" end_at)
if(begin_at EQUAL -1 OR end_at EQUAL -1)
  message(FATAL_ERROR "${CLAIMS} lacks the claims-table markers (a line '<!-- claims-table: begin -->', then the table, then '<!-- claims-table: end -->')")
endif()
string(LENGTH "${begin_marker}" marker_length)
math(EXPR quoted_at "${begin_at} + ${marker_length}")
math(EXPR quoted_length "${end_at} - ${quoted_at}")
if(quoted_length LESS 0)
  message(FATAL_ERROR "${CLAIMS}: the claims-table end marker comes before the begin marker")
endif()
string(SUBSTRING "${claims}" ${quoted_at} ${quoted_length} quoted)
if(NOT quoted STREQUAL table)
  message(FATAL_ERROR "${CLAIMS} does not quote ${TABLE} verbatim between its claims-table markers: paste the file's content there")
endif()
message(STATUS "${CLAIMS} quotes ${TABLE} verbatim")
