# README.md quotes the reference report's summary table (reports/reference/claims-table.md)
# verbatim, so the verdicts a newcomer reads are the ones the committed report computed. After
# regenerating the reference (scripts/run --out reports/reference --force), paste the new
# claims-table.md between README's claims-table markers.
file(READ "${README}" readme)
file(READ "${TABLE}" table)
string(FIND "${readme}" "${table}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md does not contain ${TABLE} verbatim: paste it between the claims-table markers")
endif()
message(STATUS "README.md quotes ${TABLE} verbatim")
