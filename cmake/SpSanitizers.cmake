# SPDX-License-Identifier: MIT
# SCOPE_PROFILER_SANITIZE=ON builds every target with ASan + UBSan; tests in CI
# run that way too. Any UBSan report aborts the process, so a test fails.
if(SCOPE_PROFILER_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
function(sp_apply_sanitizers target)
  # Global options above already cover every target; kept as a hook for
  # per-target tweaks.
endfunction()
