# SPDX-License-Identifier: MIT
# Compile flags for scope-profiler's recursive mode (recursive_profile,
# SP_SCOPE_RECURSIVE, `scope-profiler run` tracing): -finstrument-functions
# makes every function call __cyg_profile_func_enter/exit, which the library
# turns into regions "<module>.<function>" while a tracing region is open.
#
#   include(ScopeProfilerInstrument)          # or find_package(ScopeProfiler)
#   scope_profiler_instrument(my_solver)      # all of the target's sources
#
# The exclude list (GCC and Clang skip every function whose defining file's
# path CONTAINS one of the entries) keeps out:
# - system headers (libc's inline wrappers, the C++ standard library);
# - every function defined in a header (.h, .hh, .hpp, .hxx: all contain
#   ".h"; .inl, .tcc): inline accessors such as `double x(int i) const` of a
#   Domain class, called millions of times for nanoseconds each, would be
#   traced as regions of their own and make the program several times
#   slower (-finstrument-functions keeps the enter/exit calls even where the
#   accessor is inlined).
# Functions defined in your .c / .cpp files are traced. The ".h" entry also
# matches a directory whose name contains ".h" (say ~/src/my.hydro/): set
# SCOPE_PROFILER_INSTRUMENT_EXCLUDE before including this file to choose
# your own list (e.g. to trace header templates too).
set(SCOPE_PROFILER_INSTRUMENT_EXCLUDE_DEFAULT /usr/include /usr/lib/gcc /usr/local/include
    /opt/homebrew/include .h .inl .tcc)
if(NOT DEFINED SCOPE_PROFILER_INSTRUMENT_EXCLUDE)
  set(SCOPE_PROFILER_INSTRUMENT_EXCLUDE ${SCOPE_PROFILER_INSTRUMENT_EXCLUDE_DEFAULT})
endif()
list(JOIN SCOPE_PROFILER_INSTRUMENT_EXCLUDE "," _sp_instrument_exclude)
set(SCOPE_PROFILER_INSTRUMENT_FLAGS -finstrument-functions
    "-finstrument-functions-exclude-file-list=${_sp_instrument_exclude}")
unset(_sp_instrument_exclude)

# scope_profiler_instrument(<target> [PRIVATE|PUBLIC|INTERFACE]): add the
# flags to the target's compile options (PRIVATE by default).
function(scope_profiler_instrument target)
  set(scope PRIVATE)
  if(ARGC GREATER 1)
    set(scope ${ARGV1})
  endif()
  target_compile_options(${target} ${scope} ${SCOPE_PROFILER_INSTRUMENT_FLAGS})
endfunction()
