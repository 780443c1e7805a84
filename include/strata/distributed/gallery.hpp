#pragma once
/// \file
/// The gallery's model problems distributed: each process generates only
/// its own rows (a row is a function of its global index, see
/// strata/gallery/gallery.hpp), so no process ever holds the whole matrix
/// and generation scales with the processes. The rows equal those of the
/// serial generator bit for bit, so a distributed solve can be checked
/// against the serial one.
///
/// The *_rows functions give rows [row_begin, row_end) of a problem with
/// 64-bit global column ids (a RowBlock, what DistributedCsrMatrix is made
/// from); the overloads taking a RowPartition build the distributed matrix
/// (collective). Unlike the serial generators, the global row count may
/// exceed 2^31 (each process's block must fit a 32-bit column index).
/// Errors: invalid_argument naming the bad size, coefficient or range, or
/// a partition whose global size is not the problem's number of rows.

#include <string>
#include <vector>

#include "strata/distributed/matrix.hpp"
#include "strata/gallery/gallery.hpp"

namespace strata::gallery {

/// Rows [row_begin, row_end) of poisson2d(exec, nx, ny).
RowBlock<double> poisson2d_rows(const Executor& exec, size_type nx, size_type ny,
                                size_type row_begin, size_type row_end);
/// Rows [row_begin, row_end) of poisson3d(exec, nx, ny, nz).
RowBlock<double> poisson3d_rows(const Executor& exec, size_type nx, size_type ny, size_type nz,
                                size_type row_begin, size_type row_end);
/// Rows [row_begin, row_end) of diffusion3d_27pt(exec, nx, ny, nz).
RowBlock<double> diffusion3d_27pt_rows(const Executor& exec, size_type nx, size_type ny,
                                       size_type nz, size_type row_begin, size_type row_end);
/// Rows [row_begin, row_end) of anisotropic2d(exec, nx, ny, epsilon, theta).
RowBlock<double> anisotropic2d_rows(const Executor& exec, size_type nx, size_type ny,
                                    double epsilon, double theta, size_type row_begin,
                                    size_type row_end);
/// Rows [row_begin, row_end) of convdiff3d(exec, nx, ny, nz, options).
RowBlock<double> convdiff3d_rows(const Executor& exec, size_type nx, size_type ny, size_type nz,
                                 const ConvDiffOptions& options, size_type row_begin,
                                 size_type row_end);
/// Rows [row_begin, row_end) of elasticity3d(exec, nex, ney, nez,
/// options).A (any range; the partitioned elasticity3d below needs whole
/// nodes). Each row sums the stiffness of the elements around its own node
/// in the serial generator's order, so no other process's elements are
/// needed and the rows equal the serial ones bit for bit.
RowBlock<double> elasticity3d_rows(const Executor& exec, size_type nex, size_type ney,
                                   size_type nez, const ElasticityOptions& options,
                                   size_type row_begin, size_type row_end);

/// What the distributed elasticity3d returns: the matrix and this
/// process's block of the problem's nodes, which blocked smoothed
/// aggregation takes as its near-null space without any process holding
/// the whole mesh (make_smoothed_aggregation_coarsening({.block_size = 3},
/// rigid_body_modes) on a DistributedOperator of A).
struct DistributedElasticityProblem {
  DistributedCsrMatrix<double> A;
  /// The coordinates of this process's nodes (global rows [begin, end) of
  /// the serial problem's coordinates), on the executor.
  Vector<double> coordinates;
  /// This process's rows of the six rigid-body modes (as ElasticityProblem),
  /// each A.local_rows() entries on the executor.
  std::vector<Vector<double>> rigid_body_modes;
};

/// The distributed matrices: each process generates its rows of
/// `partition` (whose global size must be the problem's row count) on exec.
DistributedCsrMatrix<double> poisson2d(const RowPartition& partition, const Executor& exec,
                                       size_type nx, size_type ny);
DistributedCsrMatrix<double> poisson3d(const RowPartition& partition, const Executor& exec,
                                       size_type nx, size_type ny, size_type nz);
DistributedCsrMatrix<double> diffusion3d_27pt(const RowPartition& partition, const Executor& exec,
                                              size_type nx, size_type ny, size_type nz);
DistributedCsrMatrix<double> anisotropic2d(const RowPartition& partition, const Executor& exec,
                                           size_type nx, size_type ny, double epsilon,
                                           double theta);
DistributedCsrMatrix<double> convdiff3d(const RowPartition& partition, const Executor& exec,
                                        size_type nx, size_type ny, size_type nz,
                                        const ConvDiffOptions& options = {});
/// Elasticity on the box of elements nex x ney x nez (elasticity3d of
/// strata/gallery/gallery.hpp: nex = ney = nez is the serial cube; a weak
/// scaling over P processes grows nez with P). The partition must give
/// every process whole nodes, 3 rows each (RowPartition::uniform_nodes(comm,
/// rows, 3)), so that each process's coordinates and rigid-body modes are
/// those of its own nodes; otherwise invalid_argument names the first
/// process whose row range splits a node (on every process alike).
DistributedElasticityProblem elasticity3d(const RowPartition& partition, const Executor& exec,
                                          size_type nex, size_type ney, size_type nez,
                                          const ElasticityOptions& options = {});

/// Whether generate(name, n, comm, exec) below makes the named problem (a
/// name of problem_names()) process by process: poisson2d, poisson3d,
/// diffusion27, aniso2d, convdiff3d and elasticity3d. The others
/// (poisson2d9, jumps3d) have no row-range generator yet.
bool has_distributed_generator(const std::string& name);

/// The named problem with its size n, as generate(name, n, exec) of
/// strata/gallery/gallery.hpp makes it (the same parameters, so the rows
/// are the serial ones bit for bit), its rows split evenly over comm
/// (RowPartition::uniform; elasticity3d by whole nodes,
/// RowPartition::uniform_nodes with 3 rows a node), each process generating
/// its own. Collective.
/// Throws invalid_argument naming the problem when it has no distributed
/// generator (has_distributed_generator), or n < 1.
DistributedCsrMatrix<double> generate(const std::string& name, size_type n,
                                      const Communicator& comm, const Executor& exec);

}  // namespace strata::gallery
