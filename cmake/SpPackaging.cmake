# SPDX-License-Identifier: MIT
# Debian packages with CPack: `cpack -G DEB` in a build folder writes one
# .deb per install COMPONENT. Every install() rule names its component;
# this file maps components to Debian packages:
#
#   component  package                      contents
#   lib        libscope-profiler0           libscope_profiler.so.0 (runtime)
#   dev        libscope-profiler-dev        headers, .so link, static library, pkg-config,
#                                           CMake package, scope-profiler(3), SCHEMA.md
#   tools      scope-profiler               the scope-profiler command, its preload library
#                                           (/usr/lib/scope-profiler),
#                                           scope-profiler(1), bash/zsh completions
#   viewer     scope-profiler-viewer        the GTK viewer, .desktop, metainfo, MIME type,
#                                           icons, scope-profiler-viewer(1), completions
#   mpi        libscope-profiler-mpi0       libscope_profiler_mpi.so.0, the MPI preload library
#                                           and the command's MPI helper (scope-profiler-mpi)
#   mpi_dev    libscope-profiler-mpi-dev    the MPI library's .so link, static library,
#                                           pkg-config file, CMake targets
#   python     python3-scope-profiler       the Python module (bindings/)
#   python_mpi python3-scope-profiler-mpi   the Python module's MPI extension (_core_mpi)
#   fortran    libscope-profiler-fortran-dev  the Fortran module, its library and .pc files
#   fortran_mpi libscope-profiler-mpi-fortran-dev  its library on the MPI library, .pc file
#   cxx        (none: use dev)              the C++ header goes with the C headers
#
# A component not listed (a new binding, say) still becomes a package,
# named scope-profiler-<component>, with dependencies from dpkg-shlibdeps:
# new install() rules need only a COMPONENT. Shared-library dependencies of
# every package come from dpkg-shlibdeps (CPACK_DEBIAN_PACKAGE_SHLIBDEPS);
# the library packages publish shlibs files so packages built on them can
# depend on them the same way.
#
# Build packages for /usr (multiarch library folder) with
#   cmake -S . -B build-deb -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_BUILD_TYPE=Release
#   cmake --build build-deb -j2 && (cd build-deb && cpack -G DEB)
# Any other build folder works too (its libraries then go to /usr/lib).

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME scope-profiler)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The scope-profiler developers")
set(CPACK_PACKAGE_CONTACT "The scope-profiler developers <scope-profiler@localhost>"
    CACHE STRING "Maintainer field of the Debian packages")
# CPackDeb puts a non-default summary above every component's description;
# with the default one each package's synopsis is its description's first line.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CMAKE_PROJECT_NAME} built using CMake")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # name_version-release_arch.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
# The bindings' libraries link libscope_profiler(_mpi).so.0 from our own
# library packages: dpkg-shlibdeps runs in each component's staging folder, so
# it finds them in the sibling folders (the dependency itself comes from the
# component's DEPENDS).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ../lib/usr/${CMAKE_INSTALL_LIBDIR}
    ../mpi/usr/${CMAKE_INSTALL_LIBDIR})
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY "=") # our ABI: same version
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON) # CPACK_COMPONENT_X_DEPENDS -> Depends
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${SCOPE_PROFILER_HOMEPAGE}")
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
# Packages with shared libraries on the linker's path run ldconfig through
# dpkg's trigger (CPack also adds an ldconfig call to postinst / postrm).
set(SP_PKG_LDCONFIG_TRIGGER ${PROJECT_SOURCE_DIR}/packaging/debian/triggers)

set(SP_PKG_DESC_TAIL
  "scope-profiler records named regions of C, C++, Fortran and Python programs,
on every thread and MPI rank, into one documented HDF5 file, and reads,
compares, plots and exports those runs.")

# sp_package(component name section "summary" "description" [DEPENDS comp...] [DEBDEPS "..."]
#            [RECOMMENDS "..."] [SUGGESTS "..."])
function(sp_package comp name section summary description)
  cmake_parse_arguments(A "" "DEBDEPS;RECOMMENDS;SUGGESTS" "DEPENDS" ${ARGN})
  string(TOUPPER ${comp} C)
  set(CPACK_DEBIAN_${C}_PACKAGE_NAME ${name} PARENT_SCOPE)
  set(CPACK_DEBIAN_${C}_PACKAGE_SECTION ${section} PARENT_SCOPE)
  set(CPACK_COMPONENT_${C}_DESCRIPTION "${summary}\n${description}\n\n${SP_PKG_DESC_TAIL}"
      PARENT_SCOPE)
  if(A_DEPENDS)
    set(CPACK_COMPONENT_${C}_DEPENDS ${A_DEPENDS} PARENT_SCOPE)
  endif()
  if(A_DEBDEPS)
    set(CPACK_DEBIAN_${C}_PACKAGE_DEPENDS "${A_DEBDEPS}" PARENT_SCOPE)
  endif()
  if(A_RECOMMENDS)
    set(CPACK_DEBIAN_${C}_PACKAGE_RECOMMENDS "${A_RECOMMENDS}" PARENT_SCOPE)
  endif()
  if(A_SUGGESTS)
    set(CPACK_DEBIAN_${C}_PACKAGE_SUGGESTS "${A_SUGGESTS}" PARENT_SCOPE)
  endif()
  if(comp MATCHES "^(lib|mpi|fortran|fortran_mpi)$") # libraries on the linker's path
    set(CPACK_DEBIAN_${C}_PACKAGE_CONTROL_EXTRA ${SP_PKG_LDCONFIG_TRIGGER} PARENT_SCOPE)
  endif()
endfunction()

sp_package(lib libscope-profiler0 libs "low-overhead region profiler for HPC codes (library)"
  "The shared library a program links to record named regions (sp_setup,
SP_SCOPE, sp_finalize) and to read runs back. Function names, call-stack
sampling and LIKWID counters load libdw, libunwind and liblikwid when
present." SUGGESTS "libdw1, libunwind8, likwid")
sp_package(dev libscope-profiler-dev libdevel "low-overhead region profiler for HPC codes (development files)"
  "Headers (scope_profiler.h), the static library, the pkg-config file
scope-profiler.pc, the CMake package ScopeProfiler, the scope-profiler(3)
manual page and the file format's description (SCHEMA.md)."
  DEPENDS lib DEBDEPS "libhdf5-dev")
sp_package(tools scope-profiler devel "low-overhead region profiler for HPC codes (command-line tools)"
  "The scope-profiler command: summary, inspect, ranks, diff, check (a CI
gate with a noise test), export (CSV, JSON, Chrome trace, speedscope, folded
stacks), plot, report (self-contained HTML), tui, line-profile and run (profile
an unedited program), with its manual page and shell completions."
  RECOMMENDS "hdf5-tools, libdw1, libunwind8" SUGGESTS "scope-profiler-viewer, likwid")
sp_package(viewer scope-profiler-viewer devel "low-overhead region profiler for HPC codes (desktop viewer)"
  "A GTK 4 application to explore and compare runs: timeline per rank and
thread, regions, call tree with flame graph, per-rank imbalance, line samples,
and a statistical comparison of two runs."
  RECOMMENDS "scope-profiler")
sp_package(mpi libscope-profiler-mpi0 libs "low-overhead region profiler for HPC codes (MPI library)"
  "The library built with Open MPI: every rank of a job streams its part
and rank 0 joins them into one file. Also the preload library that `scope-profiler run`
uses under mpirun, and the helper with which `mpirun -n N scope-profiler summary RUN`
reads a run's ranks in N processes.")
sp_package(mpi_dev libscope-profiler-mpi-dev libdevel "low-overhead region profiler for HPC codes (MPI development files)"
  "The static MPI library, the pkg-config file scope-profiler-mpi.pc and the
CMake targets ScopeProfiler::scope_profiler_mpi." DEPENDS mpi dev
  DEBDEPS "libhdf5-dev, libopenmpi-dev")
sp_package(python python3-scope-profiler python "low-overhead region profiler for HPC codes (Python module)"
  "The scope_profiler Python module on the C library: the Python package's
API (ProfileManager) at the C library's cost." DEPENDS lib DEBDEPS "python3, python3-numpy")
sp_package(fortran libscope-profiler-fortran-dev libdevel "low-overhead region profiler for HPC codes (Fortran module)"
  "The scope_profiler Fortran 2008 module and its pkg-config files." DEPENDS lib dev
  DEBDEPS "gfortran")
sp_package(python_mpi python3-scope-profiler-mpi python "low-overhead region profiler for HPC codes (Python module, MPI)"
  "The MPI flavour of the scope_profiler Python module (every rank into one
file), chosen with SCOPE_PROFILER_MPI=1 or under mpirun." DEPENDS python mpi
  DEBDEPS "python3-mpi4py")
sp_package(fortran_mpi libscope-profiler-mpi-fortran-dev libdevel "low-overhead region profiler for HPC codes (Fortran module, MPI)"
  "The Fortran module's library on the MPI library and scope-profiler-mpi-fortran.pc."
  DEPENDS fortran mpi_dev)

# CPack is included at the very end of configuring, when every install()
# rule exists (some are added in deferred calls, e.g. the MPI library): the
# list of components is read then.
function(sp_packaging_finish)
  cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} GET_CALL_IDS pending)
  math(EXPR SP_PKG_ROUND "${SP_PKG_ROUND} + 1")
  set(SP_PKG_ROUND ${SP_PKG_ROUND} PARENT_SCOPE)
  if(pending AND SP_PKG_ROUND LESS 20)
    cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL sp_packaging_finish)
    return()
  endif()
  get_cmake_property(comps COMPONENTS)
  list(REMOVE_ITEM comps Unspecified)
  set(CPACK_COMPONENTS_ALL ${comps})
  foreach(c ${comps})
    string(TOUPPER ${c} C)
    if(NOT DEFINED CPACK_DEBIAN_${C}_PACKAGE_NAME)
      string(REPLACE "_" "-" n "scope-profiler-${c}")
      set(CPACK_DEBIAN_${C}_PACKAGE_NAME ${n})
      message(STATUS "packaging: install component '${c}' becomes the package ${n} "
                     "(name it in cmake/SpPackaging.cmake)")
    endif()
  endforeach()
  # A component that is not built (no MPI, no viewer) must not be a dependency.
  foreach(c ${comps})
    string(TOUPPER ${c} C)
    if(DEFINED CPACK_COMPONENT_${C}_DEPENDS)
      set(kept "")
      foreach(d ${CPACK_COMPONENT_${C}_DEPENDS})
        if(d IN_LIST comps)
          list(APPEND kept ${d})
        endif()
      endforeach()
      set(CPACK_COMPONENT_${C}_DEPENDS ${kept})
    endif()
  endforeach()
  # Debian wants a copyright file and a changelog in /usr/share/doc/<package>.
  string(REPLACE "-" ";" d "${SP_RELEASE_DATE}")
  list(GET d 0 y)
  list(GET d 1 m)
  list(GET d 2 day)
  set(doc ${PROJECT_BINARY_DIR}/packaging/debian)
  set(SP_CHANGELOG_DATE "${SP_RELEASE_WEEKDAY}, ${day} ${SP_RELEASE_MONTH} ${y} 00:00:00 +0000")
  configure_file(${PROJECT_SOURCE_DIR}/packaging/debian/changelog.in ${doc}/changelog @ONLY)
  find_program(SP_GZIP gzip)
  if(SP_GZIP) # -n: no name or time stamp in the header (reproducible, lintian)
    execute_process(COMMAND ${SP_GZIP} -9nc ${doc}/changelog OUTPUT_FILE ${doc}/changelog.Debian.gz)
  else()
    file(ARCHIVE_CREATE OUTPUT ${doc}/changelog.Debian.gz PATHS ${doc}/changelog FORMAT raw
         COMPRESSION GZip COMPRESSION_LEVEL 9)
  endif()
  foreach(c ${comps})
    string(TOUPPER ${c} C)
    install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/copyright ${doc}/changelog.Debian.gz
            DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${CPACK_DEBIAN_${C}_PACKAGE_NAME} COMPONENT ${c})
  endforeach()
  get_cmake_property(unspecified COMPONENTS)
  if("Unspecified" IN_LIST unspecified)
    message(WARNING "packaging: some install() rule has no COMPONENT; its files go to no package "
                    "(give it one of: ${comps})")
  endif()
  include(CPack)
endfunction()
set(SP_PKG_ROUND 0)
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL sp_packaging_finish)
