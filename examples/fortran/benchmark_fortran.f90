! SPDX-License-Identifier: MIT
!
! benchmark_fortran.f90 - per-call cost of the Fortran module: ns per
! sp_region_begin/sp_region_end pair (the C functions, called directly
! through bind(C)), min and median over repetitions, empty loop subtracted.
! Also what resolving the name on every call would cost (sp_region_get),
! which is why handles are resolved once. One session per repetition, with
! buffer_limit = N (one allocation; its pages are first touched in the loop).
!
!   ./build/examples/benchmark_fortran [--quick]
program benchmark_fortran
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use scope_profiler
  implicit none
  integer :: n, reps, ierr
  character(len=16) :: arg
  type(sp_region) :: r
  real(real64) :: base_min, base_med, t_min, t_med

  n = 100000   ! short loops, many repetitions: the min is a run nobody preempted
  reps = 51
  if (command_argument_count() >= 1) then
     call get_command_argument(1, arg)
     if (arg == "--quick") then
        n = 10000
        reps = 5
     end if
  end if
  print '(a,i0,a,i0,a)', "scope-profiler Fortran benchmark: ", n, " calls x ", reps, &
       " repetitions"
  print '(a40,2a10,a)', "case", "min", "median", "  (ns per call, empty loop subtracted)"

  call run(0, base_min, base_med)
  print '(a40,2f10.2,a)', "empty loop", base_min, base_med, "  (not subtracted)"
  call run(1, t_min, t_med)
  print '(a40,2f10.2)', "sp_region_begin/end (handle)", t_min - base_min, t_med - base_med
  call run(2, t_min, t_med)
  print '(a40,2f10.2)', "sp_region_get + begin/end (by name)", t_min - base_min, &
       t_med - base_med
  call run(3, t_min, t_med)
  print '(a40,2f10.2)', "begin/end, deactivate_profiling", t_min - base_min, t_med - base_med

contains

  subroutine run(what, tmin, tmed)
    integer, intent(in) :: what
    real(real64), intent(out) :: tmin, tmed
    real(real64) :: per(reps)
    integer(int64) :: c0, c1, rate
    integer :: rep, i
    real(real64) :: acc

    do rep = 1, reps
       call sp_setup(ierr, deactivate_file_output=.true., deactivate_profiling=(what == 3), &
            buffer_limit=n)
       r = sp_region_get("bench")
       acc = 0.0_real64
       call system_clock(c0, rate)
       select case (what)
       case (0)
          do i = 1, n
             acc = acc + real(i, real64)
          end do
       case (1, 3)
          do i = 1, n
             call sp_region_begin(r)
             acc = acc + real(i, real64)
             call sp_region_end(r)
          end do
       case (2)
          do i = 1, n
             r = sp_region_get("bench")
             call sp_region_begin(r)
             acc = acc + real(i, real64)
             call sp_region_end(r)
          end do
       end select
       call system_clock(c1)
       call sp_finalize(ierr, verbose=.false.)
       if (acc < 0.0_real64) print *, acc   ! keeps the loop
       per(rep) = real(c1 - c0, real64) / real(rate, real64) * 1.0e9_real64 / real(n, real64)
    end do
    call sort(per)
    tmin = per(1)
    tmed = per((reps + 1) / 2)
  end subroutine run

  subroutine sort(a)
    real(real64), intent(inout) :: a(:)
    integer :: i, j
    real(real64) :: t

    do i = 2, size(a)
       t = a(i)
       j = i - 1
       do while (j >= 1)
          if (a(j) <= t) exit
          a(j + 1) = a(j)
          j = j - 1
       end do
       a(j + 1) = t
    end do
  end subroutine sort

end program benchmark_fortran
