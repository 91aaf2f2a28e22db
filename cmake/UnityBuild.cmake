# Unity builds: a target's files compiled in batches of N, one translation unit per batch, so the
# template instantiations every file repeats (GoogleTest, Boost.Multiprecision's mpfr/mpfi
# expression templates, nlohmann::json) are compiled once per batch instead of once per file.
# Precompiled headers (PrecompiledHeaders.cmake) remove the parsing; this removes the rest of the
# per-file cost. Files with their own flags (the SIMD twins, files with their own definitions) are
# left out of the batches by CMake. ROPECHECK_UNITY=OFF compiles file by file (faster incremental
# rebuilds while editing one file; the same code either way).
option(ROPECHECK_UNITY "Compile each target's files in batches (faster cold builds)" ON)

# ropecheck_unity(TARGET N): batches of N files for TARGET.
function(ropecheck_unity target batch)
  if(ROPECHECK_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${batch})
  endif()
endfunction()
