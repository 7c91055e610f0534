# SPDX-License-Identifier: MIT
# libscope_profiler_mpi: the recorder, h5schema and analysis sources of
# libscope_profiler compiled a second time with -DSP_WITH_MPI=1, linked
# against Open MPI. Its files are written with the serial, thread-safe HDF5
# (every rank streams its own part from a writer thread; Open MPI's HDF5 is
# not thread-safe). Debian versions the symbols of the two HDF5 builds, so a
# program that uses parallel HDF5 itself can load both. An MPI program links
# it instead of libscope_profiler; a program without MPI never needs MPI.
#
#   targets     ScopeProfiler::scope_profiler_mpi (shared),
#               ScopeProfiler::scope_profiler_mpi_static
#   pkg-config  scope-profiler-mpi
#   in-tree     sp_internal_mpi (static library + internal headers, for tests)
#
# Skipped with a message when ompi-c is missing, or with
# -DSCOPE_PROFILER_MPI=OFF. SP_HAVE_MPI_LIB says whether it is built, and
# SP_MPIEXEC which launcher the tests use.
option(SCOPE_PROFILER_MPI "Build libscope_profiler_mpi (needs Open MPI)" ON)
set(SP_HAVE_MPI_LIB OFF)
if(SCOPE_PROFILER_MPI)
  pkg_check_modules(SP_MPI QUIET IMPORTED_TARGET ompi-c)
  find_program(SP_MPIEXEC NAMES mpirun mpiexec)
  if(SP_MPI_FOUND)
    set(SP_HAVE_MPI_LIB ON)
    message(STATUS "MPI: building libscope_profiler_mpi (Open MPI ${SP_MPI_VERSION}, "
                   "serial HDF5)")
  else()
    message(STATUS "MPI: Open MPI (pkg-config ompi-c) not found: libscope_profiler_mpi is "
                   "not built (Debian: apt install libopenmpi-dev openmpi-bin)")
  endif()
else()
  message(STATUS "MPI: SCOPE_PROFILER_MPI=OFF: libscope_profiler_mpi is not built")
endif()

# Built at the end of the top directory, when every helper folder has added
# its sources, definitions and libraries to the serial targets: the MPI
# library mirrors them exactly, HDF5 swapped for its Open MPI flavour.
function(sp_mpi_add_library)
  set(objs "")
  foreach(part common recorder h5schema analysis)
    set(from sp_${part}_obj)
    set(t sp_${part}_mpi_obj)
    get_target_property(dir ${from} SOURCE_DIR)
    get_target_property(srcs ${from} SOURCES)
    set(abs "")
    foreach(s ${srcs})
      if(NOT IS_ABSOLUTE "${s}" AND NOT s MATCHES "^\\$<")
        set(s "${dir}/${s}")
      endif()
      list(APPEND abs "${s}")
    endforeach()
    add_library(${t} OBJECT ${abs})
    set_target_properties(${t} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    foreach(prop INCLUDE_DIRECTORIES COMPILE_DEFINITIONS COMPILE_OPTIONS)
      get_target_property(v ${from} ${prop})
      if(v)
        set_property(TARGET ${t} PROPERTY ${prop} "${v}")
      endif()
    endforeach()
    get_target_property(libs ${from} LINK_LIBRARIES)
    if(libs)
      target_link_libraries(${t} PRIVATE ${libs})
    endif()
    target_compile_definitions(${t} PRIVATE SP_WITH_MPI=1)
    target_link_libraries(${t} PRIVATE PkgConfig::SP_MPI)
    list(APPEND objs $<TARGET_OBJECTS:${t}>)
  endforeach()

  get_target_property(extra scope_profiler LINK_LIBRARIES)
  add_library(scope_profiler_mpi SHARED ${objs})
  add_library(scope_profiler_mpi_static STATIC ${objs})
  set_target_properties(scope_profiler_mpi PROPERTIES VERSION ${PROJECT_VERSION}
                        SOVERSION ${PROJECT_VERSION_MAJOR} EXPORT_NAME scope_profiler_mpi)
  set_target_properties(scope_profiler_mpi_static PROPERTIES OUTPUT_NAME scope_profiler_mpi
                        EXPORT_NAME scope_profiler_mpi_static)
  foreach(t scope_profiler_mpi scope_profiler_mpi_static)
    target_include_directories(${t} PUBLIC
      $<BUILD_INTERFACE:${SP_PUBLIC_INCLUDE_DIR}>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    target_link_libraries(${t} PRIVATE PkgConfig::SP_MPI ${extra})
  endforeach()
  add_library(ScopeProfiler::scope_profiler_mpi ALIAS scope_profiler_mpi)
  add_library(ScopeProfiler::scope_profiler_mpi_static ALIAS scope_profiler_mpi_static)

  add_library(sp_internal_mpi INTERFACE)
  target_include_directories(sp_internal_mpi INTERFACE ${SP_INTERNAL_INCLUDE_DIRS})
  target_compile_definitions(sp_internal_mpi INTERFACE SP_WITH_MPI=1)
  target_link_libraries(sp_internal_mpi INTERFACE scope_profiler_mpi_static
    PkgConfig::SP_MPI ${extra})

  install(TARGETS scope_profiler_mpi scope_profiler_mpi_static EXPORT ScopeProfilerMpiTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT mpi NAMELINK_COMPONENT mpi_dev
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT mpi_dev
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT mpi
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT ScopeProfilerMpiTargets NAMESPACE ScopeProfiler::
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ScopeProfiler COMPONENT mpi_dev)
  include(SpPkgConfig) # relocatable, with a runpath outside /usr
  sp_install_pkgconfig(${PROJECT_SOURCE_DIR}/cmake/scope-profiler-mpi.pc.in scope-profiler-mpi mpi_dev)
endfunction()

if(SP_HAVE_MPI_LIB)
  cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL sp_mpi_add_library)
endif()
