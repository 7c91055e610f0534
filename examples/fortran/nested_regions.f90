! SPDX-License-Identifier: MIT
!
! nested_regions.f90 - the smallest Fortran program with scope-profiler:
! nested regions main > solve (3x) > assemble (6x), a name padded with
! blanks (trimmed: the same region), a final summary.
!
!   gfortran nested_regions.f90 $(pkg-config --cflags --libs scope-profiler-fortran)
!   ./a.out run.h5 && scope-profiler summary run.h5
program nested_regions
  use, intrinsic :: iso_fortran_env, only: int64
  use scope_profiler
  implicit none
  type(sp_region) :: r_main, r_solve, r_assemble
  character(len=256) :: path
  character(len=16) :: padded
  integer :: ierr, i, j
  integer(int64) :: n_solve, n_assemble
  character(len=:), allocatable :: name
  real(8) :: acc

  path = "nested.h5"
  if (command_argument_count() >= 1) call get_command_argument(1, path)
  call sp_setup(ierr, file_path=path, buffer_limit=4)
  if (ierr /= SP_OK) then
     print '(a)', "sp_setup failed: " // sp_last_error()
     error stop 1
  end if

  r_main = sp_region_get("main")
  padded = "  solve"           ! blanks around the name are trimmed
  r_solve = sp_region_get(padded)
  r_assemble = sp_region_get("assemble")

  acc = 0.0d0
  call sp_region_begin(r_main)
  do i = 1, 3
     call sp_region_begin(r_solve)
     do j = 1, 2
        call sp_region_begin(r_assemble)
        acc = acc + work(20000 * j)
        call sp_region_end(r_assemble)
     end do
     call sp_region_end(r_solve)
  end do
  call sp_region_end(r_main)

  n_solve = sp_region_num_calls(r_solve)
  n_assemble = sp_region_num_calls(r_assemble)
  name = sp_region_name(r_solve)
  if (n_solve /= 3 .or. n_assemble /= 6 .or. name /= "solve") then
     print '(a)', "FAIL: unexpected call counts or name"
     error stop 1
  end if
  deallocate (name) ! a main program's allocatables are never freed otherwise
  print '(a,f0.3)', "nested regions: checksum ", acc
  call sp_finalize(ierr)
  if (ierr /= SP_OK) then
     print '(a)', "sp_finalize failed: " // sp_last_error()
     error stop 1
  end if

contains

  real(8) function work(n)
    integer, intent(in) :: n
    integer :: k

    work = 0.0d0
    do k = 1, n
       work = work + sqrt(real(k, 8))
    end do
  end function work

end program nested_regions
