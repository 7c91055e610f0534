# SPDX-License-Identifier: MIT
# Compile flags for scope-profiler's recursive mode (recursive_profile,
# SP_SCOPE_RECURSIVE, `scope-profiler run` tracing): -finstrument-functions
# makes every function call __cyg_profile_func_enter/exit, which the library
# turns into regions "<module>.<function>" while a tracing region is open.
#
#   include(ScopeProfilerInstrument)          # or find_package(ScopeProfiler)
#   scope_profiler_instrument(my_solver)      # all of the target's sources
#
# It also adds -g to a build type without debug information (Release), which
# names functions after their files; see SCOPE_PROFILER_INSTRUMENT_DEBUG_INFO.
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

# Traced functions are named "<file>.<function>" from the debug information
# (DWARF): without -g only the symbol table is left, and they are named
# "<function>" alone (the run says so). -g changes no generated code, so
# scope_profiler_instrument() adds it where the build type compiles without
# debug information (Release, MinSizeRel, none), unless this is OFF.
option(SCOPE_PROFILER_INSTRUMENT_DEBUG_INFO
       "scope_profiler_instrument() adds -g where the build type has no debug information" ON)

# Whether the flags of the current build type already ask for debug
# information (-g, -g3, -ggdb, ...) in one of the enabled languages.
function(_sp_build_type_has_debug_info out)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" cfg)
  get_property(langs GLOBAL PROPERTY ENABLED_LANGUAGES)
  set(has FALSE)
  foreach(lang ${langs})
    if(" ${CMAKE_${lang}_FLAGS} ${CMAKE_${lang}_FLAGS_${cfg}} " MATCHES " -g[^ ]* ")
      set(has TRUE)
    endif()
  endforeach()
  set(${out} ${has} PARENT_SCOPE)
endfunction()

# scope_profiler_instrument(<target> [PRIVATE|PUBLIC|INTERFACE]): add the
# flags to the target's compile options (PRIVATE by default), and -g (see
# SCOPE_PROFILER_INSTRUMENT_DEBUG_INFO above).
function(scope_profiler_instrument target)
  set(scope PRIVATE)
  if(ARGC GREATER 1)
    set(scope ${ARGV1})
  endif()
  target_compile_options(${target} ${scope} ${SCOPE_PROFILER_INSTRUMENT_FLAGS})
  if(SCOPE_PROFILER_INSTRUMENT_DEBUG_INFO)
    get_property(multi GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
    if(multi)
      target_compile_options(${target} ${scope} $<$<CONFIG:Release,MinSizeRel>:-g>)
    else()
      _sp_build_type_has_debug_info(has_g)
      if(NOT has_g)
        target_compile_options(${target} ${scope} -g)
      endif()
    endif()
  endif()
endfunction()
