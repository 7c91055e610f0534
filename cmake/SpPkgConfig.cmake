# SPDX-License-Identifier: MIT
# pkg-config files that work from any install prefix.
#
# The .pc is relocatable (the prefix is found from the file's own place), and
# a program built with `cc app.c $(pkg-config --cflags --libs scope-profiler)`
# must also RUN: outside /usr the dynamic loader does not know the library's
# directory, so the .pc installed into any other prefix adds a runpath
# (-Wl,-rpath,${libdir}) to Libs. Which of the two variants is installed is
# decided at install time, so `cmake --install build --prefix DIR` gets the
# runpath while a distribution package (prefix /usr) does not.
#
#   sp_install_pkgconfig(<template.pc.in> <name> <install component>)
#
# The template uses @SP_PC_TO_PREFIX@ and @SP_PC_RPATH@ (empty, or
# "-Wl,-rpath,${libdir} ") besides the usual project variables, and
# @SP_PC_HDF5_LIBS@ / @SP_PC_MPI_LIBS@: what the static libraries need at
# link time, for Libs.private. Not Requires.private: pkg-config adds the
# Cflags of those packages to `--cflags` too, and the public header needs
# neither HDF5 (-I/usr/include/hdf5/serial would shadow the parallel HDF5
# headers of an MPI program) nor MPI.
function(sp_install_pkgconfig template name component)
  list(JOIN HDF5_STATIC_LDFLAGS " " SP_PC_HDF5_LIBS)
  list(JOIN SP_MPI_STATIC_LDFLAGS " " SP_PC_MPI_LIBS)
  file(RELATIVE_PATH SP_PC_TO_PREFIX "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig"
       "${CMAKE_INSTALL_PREFIX}")
  set(SP_PC_RPATH "")
  configure_file(${template} ${PROJECT_BINARY_DIR}/pkgconfig-system/${name}.pc @ONLY)
  set(SP_PC_RPATH "-Wl,-rpath,\${libdir} ")
  configure_file(${template} ${PROJECT_BINARY_DIR}/pkgconfig-rpath/${name}.pc @ONLY)
  # The build tree's copy (tests, uninstalled use) is the plain one.
  configure_file(${PROJECT_BINARY_DIR}/pkgconfig-system/${name}.pc ${PROJECT_BINARY_DIR}/${name}.pc
                 COPYONLY)
  install(CODE "
    if(\"\${CMAKE_INSTALL_PREFIX}\" STREQUAL \"/usr\")
      set(_sp_pc_dir \"${PROJECT_BINARY_DIR}/pkgconfig-system\")
    else()
      set(_sp_pc_dir \"${PROJECT_BINARY_DIR}/pkgconfig-rpath\")
    endif()
    file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\"
         TYPE FILE FILES \"\${_sp_pc_dir}/${name}.pc\")
  " COMPONENT ${component})
endfunction()
