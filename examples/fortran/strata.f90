! Fortran 2008 bindings to Strata's C API (strata/strata_c.h) through
! iso_c_binding: the same functions, handles as type(c_ptr), settings as a
! JSON string. See solve.f90 for a use.
module strata
  use, intrinsic :: iso_c_binding
  implicit none
  private :: c_strlen

  integer(c_int), parameter :: STRATA_SUCCESS = 0
  integer(c_int), parameter :: STRATA_ERROR_INVALID_ARGUMENT = 1
  integer(c_int), parameter :: STRATA_HOST = 0, STRATA_DEVICE = 1

  type, bind(c) :: strata_solve_info
    integer(c_int) :: converged
    integer(c_int) :: iterations
    real(c_double) :: initial_residual_norm
    real(c_double) :: residual_norm
    real(c_double) :: relative_residual
    real(c_double) :: true_relative_residual
    character(kind=c_char) :: status(32)
    character(kind=c_char) :: message(256)
  end type strata_solve_info

  interface
    function strata_matrix_create_csr(location, rows, cols, row_ptr, col_idx, values, matrix) &
        bind(c, name="strata_matrix_create_csr") result(status)
      import :: c_int, c_int64_t, c_int32_t, c_double, c_ptr
      integer(c_int), value :: location
      integer(c_int64_t), value :: rows, cols
      integer(c_int64_t), intent(in) :: row_ptr(*)
      integer(c_int32_t), intent(in) :: col_idx(*)
      real(c_double), intent(in) :: values(*)
      type(c_ptr), intent(out) :: matrix
      integer(c_int) :: status
    end function strata_matrix_create_csr

    ! New values for the same pattern, in the matrix's order; solvers see
    ! them after strata_solver_resetup.
    function strata_matrix_set_values(matrix, values) &
        bind(c, name="strata_matrix_set_values") result(status)
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: matrix
      real(c_double), intent(in) :: values(*)
      integer(c_int) :: status
    end function strata_matrix_set_values

    function strata_matrix_size(matrix, rows, cols, nnz) bind(c, name="strata_matrix_size") &
        result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: matrix
      integer(c_int64_t), intent(out) :: rows, cols, nnz
      integer(c_int) :: status
    end function strata_matrix_size

    ! The near-null space (k columns of rows values, column-major: a
    ! Fortran array near_null(rows, k)) and the unknowns per node, for the
    ! aggregation coarsenings of solvers created afterwards (the rigid-body
    ! modes of elasticity).
    function strata_matrix_set_near_null_space(matrix, block_size, k, near_null) &
        bind(c, name="strata_matrix_set_near_null_space") result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      type(c_ptr), value :: matrix
      integer(c_int), value :: block_size
      integer(c_int64_t), value :: k
      real(c_double), intent(in) :: near_null(*)
      integer(c_int) :: status
    end function strata_matrix_set_near_null_space

    function strata_matrix_destroy(matrix) bind(c, name="strata_matrix_destroy") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: matrix
      integer(c_int) :: status
    end function strata_matrix_destroy

    function strata_solver_create(matrix, json_config, solver) &
        bind(c, name="strata_solver_create") result(status)
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: matrix
      character(kind=c_char), intent(in) :: json_config(*)
      type(c_ptr), intent(out) :: solver
      integer(c_int) :: status
    end function strata_solver_create

    ! After strata_matrix_set_values: refreshes the preconditioner (a
    ! value-only AMG resetup where the hierarchy kept its data).
    function strata_solver_resetup(solver) bind(c, name="strata_solver_resetup") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: solver
      integer(c_int) :: status
    end function strata_solver_resetup

    function strata_solver_solve(solver, b, x, info) bind(c, name="strata_solver_solve") &
        result(status)
      import :: c_int, c_ptr, c_double, strata_solve_info
      type(c_ptr), value :: solver
      real(c_double), intent(in) :: b(*)
      real(c_double), intent(inout) :: x(*)
      type(strata_solve_info), intent(out) :: info
      integer(c_int) :: status
    end function strata_solver_solve

    function strata_solver_destroy(solver) bind(c, name="strata_solver_destroy") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: solver
      integer(c_int) :: status
    end function strata_solver_destroy

    function strata_last_error_c() bind(c, name="strata_last_error") result(message)
      import :: c_ptr
      type(c_ptr) :: message
    end function strata_last_error_c

    function c_strlen(s) bind(c, name="strlen") result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function c_strlen
  end interface

contains

  !> The message of the last failing call, as a Fortran string.
  function strata_last_error() result(message)
    character(len=:), allocatable :: message
    type(c_ptr) :: p
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    p = strata_last_error_c()
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: message)
    do i = 1, n
      message(i:i) = chars(i)
    end do
  end function strata_last_error

  !> A C character array (status, message) as a trimmed Fortran string.
  function c_text(chars) result(text)
    character(kind=c_char), intent(in) :: chars(:)
    character(len=:), allocatable :: text
    integer :: i, n
    n = 0
    do i = 1, size(chars)
      if (chars(i) == c_null_char) exit
      n = i
    end do
    allocate(character(len=n) :: text)
    do i = 1, n
      text(i:i) = chars(i)
    end do
  end function c_text

end module strata
