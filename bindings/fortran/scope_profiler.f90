! SPDX-License-Identifier: MIT
!
! scope_profiler.f90 - the Fortran 2008 module of scope-profiler, on the C
! API through iso_c_binding.
!
!   use scope_profiler
!   type(sp_region) :: r
!   integer :: ierr
!   call sp_setup(ierr, file_path="run.h5")          ! options are optional
!   r = sp_region_get("solve")                        ! resolve once, keep the handle
!   call sp_region_begin(r)
!   ...
!   call sp_region_end(r)
!   call sp_finalize(ierr)                            ! writes run.h5, prints the tree
!
! Build: gfortran app.f90 $(pkg-config --cflags --libs scope-profiler-fortran)
! (MPI: mpif90 ... scope-profiler-mpi-fortran; call sp_setup after MPI_Init
! and sp_finalize before MPI_Finalize, on every rank).
!
! - sp_region_begin/sp_region_end are the C functions themselves (no
!   wrapper): sp_region is an interoperable type holding the C handle, passed
!   by value (the same registers as the C pointer).
! - Names are trimmed of leading and trailing blanks, so a name padded in a
!   character variable is the same region as the literal.
! - ierr is 0 (SP_OK) or a negative SP_E* status; sp_last_error() says why.
! - sp_setup's optional arguments are those of the Python package's setup;
!   everything else keeps the C defaults (and SCOPE_PROFILER_* variables
!   override, as in C).
module scope_profiler
  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr, c_char, c_null_char, c_int, &
       c_long_long, c_int64_t, c_associated, c_f_pointer, c_size_t
  implicit none
  private

  public :: sp_region, sp_setup, sp_finalize, sp_region_get, sp_region_begin, sp_region_end, &
       sp_region_num_calls, sp_region_name, sp_last_error, sp_region_is_valid
  public :: SP_OK, SP_EINVAL, SP_ENOMEM, SP_EIO, SP_ESTATE, SP_ENOTSUP, SP_EUNBALANCED

  integer, parameter :: SP_OK = 0, SP_EINVAL = -1, SP_ENOMEM = -2, SP_EIO = -3, &
       SP_ESTATE = -4, SP_ENOTSUP = -7, SP_EUNBALANCED = -9

  !> A region handle: get it once with sp_region_get, then begin/end it.
  type, bind(C) :: sp_region
     type(c_ptr) :: handle = c_null_ptr
  end type sp_region

  interface
     subroutine sp_region_begin(r) bind(C, name="sp_region_begin")
       import :: sp_region
       type(sp_region), value :: r
     end subroutine sp_region_begin

     subroutine sp_region_end(r) bind(C, name="sp_region_end")
       import :: sp_region
       type(sp_region), value :: r
     end subroutine sp_region_end

     function c_region_get(name) bind(C, name="sp_region_get") result(h)
       import :: c_char, c_ptr
       character(kind=c_char), dimension(*), intent(in) :: name
       type(c_ptr) :: h
     end function c_region_get

     function c_num_calls(r) bind(C, name="sp_region_num_calls") result(n)
       import :: sp_region, c_int64_t
       type(sp_region), value :: r
       integer(c_int64_t) :: n
     end function c_num_calls

     function c_region_name(r) bind(C, name="sp_region_name") result(s)
       import :: sp_region, c_ptr
       type(sp_region), value :: r
       type(c_ptr) :: s
     end function c_region_name

     function c_last_error() bind(C, name="sp_last_error") result(s)
       import :: c_ptr
       type(c_ptr) :: s
     end function c_last_error

     function c_strlen(s) bind(C, name="strlen") result(n)
       import :: c_ptr, c_size_t
       type(c_ptr), value :: s
       integer(c_size_t) :: n
     end function c_strlen

     function c_setup(file_path, buffer_limit, deactivate_profiling, deactivate_file_output, &
          recursive_profile, use_line_profiler, use_likwid) &
          bind(C, name="sp_fortran_setup") result(rc)
       import :: c_char, c_long_long, c_int
       character(kind=c_char), dimension(*), intent(in) :: file_path
       integer(c_long_long), value :: buffer_limit
       integer(c_int), value :: deactivate_profiling, deactivate_file_output, &
            recursive_profile, use_line_profiler, use_likwid
       integer(c_int) :: rc
     end function c_setup

     function c_finalize(verbose) bind(C, name="sp_fortran_finalize") result(rc)
       import :: c_int
       integer(c_int), value :: verbose
       integer(c_int) :: rc
     end function c_finalize
  end interface

contains

  !> Start a profiling session (a second call discards an unfinalized one).
  subroutine sp_setup(ierr, file_path, buffer_limit, deactivate_profiling, &
       deactivate_file_output, recursive_profile, use_line_profiler, use_likwid)
    integer, intent(out) :: ierr
    character(len=*), intent(in), optional :: file_path
    integer, intent(in), optional :: buffer_limit
    logical, intent(in), optional :: deactivate_profiling, deactivate_file_output, &
         recursive_profile, use_line_profiler, use_likwid
    integer(c_long_long) :: limit

    limit = 0_c_long_long
    if (present(buffer_limit)) then
       if (buffer_limit < 1) then
          ierr = SP_EINVAL
          return
       end if
       limit = int(buffer_limit, c_long_long)
    end if
    if (present(file_path)) then
       ierr = int(c_setup(trim(adjustl(file_path)) // c_null_char, limit, &
            flag(deactivate_profiling), flag(deactivate_file_output), &
            flag(recursive_profile), flag(use_line_profiler), flag(use_likwid)))
    else
       ierr = int(c_setup(c_null_char, limit, flag(deactivate_profiling), &
            flag(deactivate_file_output), flag(recursive_profile), &
            flag(use_line_profiler), flag(use_likwid)))
    end if
  end subroutine sp_setup

  !> End the session: write the file, print the summary tree when verbose
  !> (default .true.; under MPI on rank 0). Collective under MPI.
  subroutine sp_finalize(ierr, verbose)
    use, intrinsic :: iso_fortran_env, only: output_unit
    integer, intent(out) :: ierr
    logical, intent(in), optional :: verbose
    integer(c_int) :: v

    v = 1_c_int
    if (present(verbose)) then
       if (.not. verbose) v = 0_c_int
    end if
    flush (output_unit) ! the program's lines before the summary
    ierr = int(c_finalize(v))
  end subroutine sp_finalize

  !> The handle of the region called name (trimmed), created on first use.
  !> Takes a lock: call it once per region, not in the hot loop.
  function sp_region_get(name) result(r)
    character(len=*), intent(in) :: name
    type(sp_region) :: r

    r%handle = c_region_get(trim(adjustl(name)) // c_null_char)
  end function sp_region_get

  !> Calls recorded in this session (all threads).
  function sp_region_num_calls(r) result(n)
    type(sp_region), intent(in) :: r
    integer(c_int64_t) :: n

    n = c_num_calls(r)
  end function sp_region_num_calls

  !> False for a handle never set by sp_region_get.
  logical function sp_region_is_valid(r)
    type(sp_region), intent(in) :: r

    sp_region_is_valid = c_associated(r%handle)
  end function sp_region_is_valid

  !> The region's name.
  function sp_region_name(r) result(s)
    type(sp_region), intent(in) :: r
    character(len=:), allocatable :: s

    s = c_string(c_region_name(r))
  end function sp_region_name

  !> Why the last failing call on this thread failed.
  function sp_last_error() result(s)
    character(len=:), allocatable :: s

    s = c_string(c_last_error())
  end function sp_last_error

  integer(c_int) function flag(x)
    logical, intent(in), optional :: x

    flag = 0_c_int
    if (present(x)) then
       if (x) flag = 1_c_int
    end if
  end function flag

  function c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n

    if (.not. c_associated(p)) then
       s = ""
       return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
       s(i:i) = chars(i)
    end do
  end function c_string

end module scope_profiler
