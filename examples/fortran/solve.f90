! Solves the 1D Poisson problem tridiag(-1, 2, -1) x = 1 with AMG-
! preconditioned CG through Strata's C API, and checks ||b - A x|| / ||b||
! itself; then new values (twice the matrix) and a value-only resetup, and
! smoothed aggregation from a near-null space given by the program. Stops
! with status 1 unless every solve meets the tolerance.
program solve
  use, intrinsic :: iso_c_binding
  use strata
  implicit none
  integer(c_int64_t), parameter :: n = 2000
  integer(c_int64_t) :: row_ptr(n + 1), i, k, p
  integer(c_int32_t) :: col_idx(3 * n)
  real(c_double) :: values(3 * n), b(n), x(n), x1(n), ones(n, 1), ax, rr, bb
  type(c_ptr) :: A, S, bad, A2, S2
  type(strata_solve_info) :: info
  integer(c_int) :: status
  integer(c_int64_t) :: rows, cols, nnz

  k = 0
  row_ptr(1) = 0
  do i = 0, n - 1
    if (i > 0) then
      k = k + 1; col_idx(k) = int(i - 1, c_int32_t); values(k) = -1.0_c_double
    end if
    k = k + 1; col_idx(k) = int(i, c_int32_t); values(k) = 2.0_c_double
    if (i < n - 1) then
      k = k + 1; col_idx(k) = int(i + 1, c_int32_t); values(k) = -1.0_c_double
    end if
    row_ptr(i + 2) = k
  end do
  b = 1.0_c_double
  x = 0.0_c_double

  call check(strata_matrix_create_csr(STRATA_HOST, n, n, row_ptr, col_idx, values, A))
  call check(strata_solver_create(A, '{"solver": {"type": "cg", "tolerance": 1e-8}, ' // &
             '"preconditioner": {"type": "amg"}}' // c_null_char, S))
  call check(strata_matrix_destroy(A))  ! the solver shares the matrix
  call check(strata_solver_solve(S, b, x, info))
  print '(a, a, a, i0, a)', 'fortran_example: ', c_text(info%status), ' in ', info%iterations, &
        ' iterations'

  rr = 0
  bb = 0
  do i = 1, n
    ax = 0
    do p = row_ptr(i) + 1, row_ptr(i + 1)
      ax = ax + values(p) * x(col_idx(p) + 1)
    end do
    rr = rr + (b(i) - ax)**2
    bb = bb + b(i)**2
  end do
  print '(a, es10.3)', '  ||b - A x|| / ||b|| = ', sqrt(rr / bb)

  if (sqrt(rr / bb) > 1e-8_c_double) stop 1

  ! New values, the same pattern: 2 A, whose solution is x / 2.
  call check(strata_matrix_create_csr(STRATA_HOST, n, n, row_ptr, col_idx, values, A2))
  call check(strata_matrix_size(A2, rows, cols, nnz))
  if (rows /= n .or. cols /= n .or. nnz /= k) stop 1
  call check(strata_solver_create(A2, '{"solver": {"type": "cg", "tolerance": 1e-10}, ' // &
             '"preconditioner": {"type": "amg"}}' // c_null_char, S2))
  x1 = 0.0_c_double
  call check(strata_solver_solve(S2, b, x1, info))
  call check(strata_matrix_set_values(A2, 2.0_c_double * values(1:k)))
  call check(strata_solver_resetup(S2))
  x = 0.0_c_double
  call check(strata_solver_solve(S2, b, x, info))
  print '(a, i0, a, es10.3)', '  after resetup with 2 A: ', info%iterations, &
        ' iterations, max |x - x1 / 2| = ', maxval(abs(x - x1 / 2))
  if (info%converged /= 1 .or. maxval(abs(x - x1 / 2)) > 1e-6_c_double * maxval(abs(x1))) stop 1
  call check(strata_solver_destroy(S2))

  ! Smoothed aggregation from a near-null space the program gives (the
  ! constant vector, which is also the default).
  ones = 1.0_c_double
  call check(strata_matrix_set_near_null_space(A2, 1_c_int, 1_c_int64_t, ones))
  call check(strata_solver_create(A2, '{"solver": {"type": "cg", "tolerance": 1e-8}, ' // &
             '"preconditioner": {"type": "amg", "amg": {"coarsening": ' // &
             '"smoothed_aggregation"}}}' // c_null_char, S2))
  x = 0.0_c_double
  call check(strata_solver_solve(S2, b, x, info))
  print '(a, a, a, i0, a)', '  smoothed aggregation: ', c_text(info%status), ' in ', &
        info%iterations, ' iterations'
  if (info%converged /= 1 .or. info%true_relative_residual > 1e-8_c_double) stop 1
  call check(strata_solver_destroy(S2))
  call check(strata_matrix_destroy(A2))

  ! A bad setting is an error with a message naming it.
  call check(strata_matrix_create_csr(STRATA_HOST, n, n, row_ptr, col_idx, values, A))
  status = strata_solver_create(A, '{"preconditioner": {"type": "ilu9"}}' // c_null_char, bad)
  print '(a, i0, a, a)', '  an unknown preconditioner: status ', status, ', ', strata_last_error()
  call check(strata_matrix_destroy(A))
  call check(strata_solver_destroy(S))
  if (info%converged /= 1 .or. sqrt(rr / bb) > 1e-8_c_double .or. &
      status /= STRATA_ERROR_INVALID_ARGUMENT .or. index(strata_last_error(), 'ilu9') == 0) then
    stop 1
  end if

contains

  subroutine check(status)
    integer(c_int), intent(in) :: status
    if (status /= STRATA_SUCCESS) then
      print '(a, i0, a, a)', 'strata call failed (', status, '): ', strata_last_error()
      stop 1
    end if
  end subroutine check

end program solve
