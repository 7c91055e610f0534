! SPDX-License-Identifier: MIT
!
! halo_mini_app.f90 - a Fortran MPI mini-app instrumented with the
! scope_profiler module: 1-D heat diffusion split across the ranks, a
! derived type for the local field with its ghost cells, a halo exchange
! with the neighbours (MPI_Sendrecv) every step and a global residual
! (MPI_Allreduce) every 10 steps. Rank r does (r+1) sweeps' worth of extra
! smoothing, so the ranks are deliberately imbalanced and the fast ones wait
! in the halo exchange.
!
!   mpif90 halo_mini_app.f90 $(pkg-config --cflags --libs scope-profiler-mpi-fortran)
!   mpirun -n 4 ./a.out halo.h5 [steps] && scope-profiler ranks halo.h5
!
! Regions: main > timestep > {halo_exchange, compute > smooth, residual}.
module field_mod
  use scope_profiler
  implicit none
  private
  public :: field_t, field_init, profiling_regions, r_halo, r_compute, r_smooth, r_residual

  !> The local part of the field, u(0) and u(n+1) are the ghost cells.
  type :: field_t
     integer :: n = 0
     integer :: left = -1, right = -1     ! neighbour ranks (MPI_PROC_NULL at the ends)
     real(8), allocatable :: u(:), unew(:)
  end type field_t

  type(sp_region), save :: r_halo, r_compute, r_smooth, r_residual

contains

  subroutine profiling_regions()
    r_halo = sp_region_get("halo_exchange")
    r_compute = sp_region_get("compute")
    r_smooth = sp_region_get("smooth")
    r_residual = sp_region_get("residual")
  end subroutine profiling_regions

  subroutine field_init(f, n, rank, nranks, proc_null)
    type(field_t), intent(inout) :: f
    integer, intent(in) :: n, rank, nranks, proc_null
    integer :: i

    f%n = n
    allocate (f%u(0:n + 1), f%unew(0:n + 1))
    do i = 0, n + 1
       f%u(i) = sin(real(rank * n + i, 8) * 0.01d0)
    end do
    f%unew = f%u
    f%left = rank - 1
    f%right = rank + 1
    if (rank == 0) f%left = proc_null
    if (rank == nranks - 1) f%right = proc_null
  end subroutine field_init

end module field_mod

module solver_mod
  use mpi
  use scope_profiler
  use field_mod
  implicit none
  private
  public :: halo_exchange, compute, residual

contains

  subroutine halo_exchange(f, comm)
    type(field_t), intent(inout) :: f
    integer, intent(in) :: comm
    integer :: ierr

    call sp_region_begin(r_halo)
    call MPI_Sendrecv(f%u(f%n), 1, MPI_DOUBLE_PRECISION, f%right, 0, &
         f%u(0), 1, MPI_DOUBLE_PRECISION, f%left, 0, comm, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(f%u(1), 1, MPI_DOUBLE_PRECISION, f%left, 1, &
         f%u(f%n + 1), 1, MPI_DOUBLE_PRECISION, f%right, 1, comm, MPI_STATUS_IGNORE, ierr)
    call sp_region_end(r_halo)
  end subroutine halo_exchange

  subroutine compute(f, extra)
    type(field_t), intent(inout) :: f
    integer, intent(in) :: extra
    integer :: i, k

    call sp_region_begin(r_compute)
    do i = 1, f%n
       f%unew(i) = f%u(i) + 0.25d0 * (f%u(i - 1) - 2.0d0 * f%u(i) + f%u(i + 1))
    end do
    call sp_region_begin(r_smooth)
    do k = 1, extra
       do i = 2, f%n - 1
          f%unew(i) = 0.5d0 * f%unew(i) + 0.25d0 * (f%unew(i - 1) + f%unew(i + 1))
       end do
    end do
    call sp_region_end(r_smooth)
    f%u(1:f%n) = f%unew(1:f%n)
    call sp_region_end(r_compute)
  end subroutine compute

  real(8) function residual(f, comm)
    type(field_t), intent(in) :: f
    integer, intent(in) :: comm
    real(8) :: mine
    integer :: ierr

    call sp_region_begin(r_residual)
    mine = sum(abs(f%unew(1:f%n) - f%u(1:f%n))) + sum(f%u(1:f%n)**2)
    call MPI_Allreduce(mine, residual, 1, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
    call sp_region_end(r_residual)
  end function residual

end module solver_mod

program halo_mini_app
  use mpi
  use scope_profiler
  use field_mod
  use solver_mod
  implicit none
  type(field_t) :: f
  type(sp_region) :: r_main, r_step
  character(len=256) :: path, arg
  integer :: ierr, rank, nranks, step, nsteps
  real(8) :: res

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  path = "halo.h5"
  nsteps = 200
  if (command_argument_count() >= 1) call get_command_argument(1, path)
  if (command_argument_count() >= 2) then
     call get_command_argument(2, arg)
     read (arg, *) nsteps
  end if

  call sp_setup(ierr, file_path=path)   ! after MPI_Init: one file for all ranks
  if (ierr /= SP_OK) then
     print '(a)', "sp_setup failed: " // sp_last_error()
     call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call profiling_regions()
  r_main = sp_region_get("main")
  r_step = sp_region_get("timestep")

  call field_init(f, 20000, rank, nranks, MPI_PROC_NULL)
  res = 0.0d0
  call sp_region_begin(r_main)
  do step = 1, nsteps
     call sp_region_begin(r_step)
     call halo_exchange(f, MPI_COMM_WORLD)
     call compute(f, rank + 1)
     if (mod(step, 10) == 0) res = residual(f, MPI_COMM_WORLD)
     call sp_region_end(r_step)
  end do
  call sp_region_end(r_main)

  if (rank == 0) print '(a,i0,a,i0,a,es12.5)', "halo mini-app: ", nranks, " ranks, ", nsteps, &
       " steps, residual ", res
  call sp_finalize(ierr)               ! collective, before MPI_Finalize
  if (ierr /= SP_OK) then
     print '(a)', "sp_finalize failed: " // sp_last_error()
     call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Finalize(ierr)
end program halo_mini_app
