# SPDX-License-Identifier: MIT
# SCOPE_PROFILER_SANITIZE=ON builds every target with ASan + UBSan; tests in CI
# run that way too. Any UBSan report aborts the process, so a test fails.
if(SCOPE_PROFILER_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
# SCOPE_PROFILER_SANITIZE_THREAD=ON: ThreadSanitizer instead (the recorder's
# threads; scripts/test-tsan.sh). Not together with the option above.
if(SCOPE_PROFILER_SANITIZE_THREAD)
  if(SCOPE_PROFILER_SANITIZE OR SCOPE_PROFILER_FUZZ)
    message(FATAL_ERROR "SCOPE_PROFILER_SANITIZE_THREAD excludes the ASan options")
  endif()
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()
# SCOPE_PROFILER_FUZZ=ON (clang): every target with the libFuzzer coverage
# hooks, ASan and UBSan; tests/fuzz builds the fuzz targets (scripts/fuzz.sh).
if(SCOPE_PROFILER_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SCOPE_PROFILER_FUZZ needs clang (CC=clang-14)")
  endif()
  # -Wno-error: clang warns about things gcc does not; the gcc builds keep
  # -Werror, this one only has to find bugs.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer -Wno-error)
  add_link_options(-fsanitize=address,undefined)
endif()
function(sp_apply_sanitizers target)
  # Global options above already cover every target; kept as a hook for
  # per-target tweaks.
endfunction()
