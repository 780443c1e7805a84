#pragma once
/// \file
/// The group of processes a distributed object lives on.
///
/// Communicator hides MPI: this header (and every other public header but
/// strata/distributed/mpi.hpp) includes no mpi.h, so a program that never
/// calls MPI compiles against Strata without it, and an MPI-free build of
/// Strata has the same distributed types over the one-process communicator
/// (Communicator::self()). An MPI program makes a Communicator from its own
/// MPI_Comm with make_communicator() in strata/distributed/mpi.hpp, or takes
/// Communicator::world().
///
/// Strata talks on a duplicate of the communicator it is given (as PETSc
/// does), so its messages can never match a receive the program posts on
/// its own communicator. Copies of a Communicator share that duplicate; the
/// last one frees it (unless MPI has been finalized by then, when there is
/// nothing left to free). Every function that communicates is collective
/// over the communicator: all its processes call it, in the same order.

#include <memory>
#include <string>

#include "strata/config.hpp"
#include "strata/core/error.hpp"

namespace strata {

namespace detail {
/// The MPI state behind a Communicator (the duplicated MPI_Comm and what
/// was queried about it once); defined where MPI is compiled in.
struct CommunicatorState;
/// The device transports (NCCL) made on a communicator, shared by its
/// copies; defined where the distributed layer is compiled.
struct DeviceLinks;
}  // namespace detail

class Communicator {
 public:
  /// The one-process communicator: rank 0 of 1, no MPI involved. What an
  /// MPI-free build offers, and a way to run distributed code serially.
  static Communicator self();
  /// A duplicate of MPI_COMM_WORLD. Throws not_compiled in a build without
  /// MPI, invalid_argument when MPI has not been initialized (MPI_Init is
  /// the program's call, not Strata's).
  static Communicator world();
  /// From the address of an MPI_Comm (duplicated here). Programs call
  /// make_communicator(comm) of strata/distributed/mpi.hpp, which passes
  /// &comm: this signature is what keeps MPI types out of the header.
  /// Throws not_compiled in a build without MPI, invalid_argument for a null
  /// address, MPI_COMM_NULL or MPI not initialized.
  static Communicator from_mpi_comm_address(const void* mpi_comm);

  /// The one-process communicator (what self() returns).
  Communicator();

  /// This process's rank in [0, size()).
  int rank() const noexcept { return rank_; }
  /// Number of processes.
  int size() const noexcept { return size_; }
  /// Whether messages go through MPI (false for self()).
  bool is_mpi() const noexcept { return state_ != nullptr; }
  /// Whether MPI can send and receive CUDA device memory directly (Open
  /// MPI's MPIX_Query_cuda_support(), asked once at construction, so it
  /// reflects the library and settings of this run); false without MPI.
  bool cuda_aware() const noexcept { return cuda_aware_; }
  /// Waits until every process has called it.
  void barrier() const;

  /// The MPI state; only the distributed layer's sources use it.
  const detail::CommunicatorState* state() const noexcept { return state_.get(); }
  /// The device transports made on it (null for the one-process
  /// communicator); only the distributed layer's sources use it.
  detail::DeviceLinks* device_links() const noexcept { return links_.get(); }

 private:
  std::shared_ptr<const detail::CommunicatorState> state_;
  std::shared_ptr<detail::DeviceLinks> links_;
  int rank_ = 0;
  int size_ = 1;
  bool cuda_aware_ = false;
};

/// True when this build of Strata talks MPI.
bool mpi_compiled() noexcept;
/// True when this build can exchange device halos through NCCL (CUDA, MPI
/// and NCCL found at configure time; see device_transfer()).
bool nccl_compiled() noexcept;

/// How halo exchanges move CUDA device data on `comm`, for summaries:
/// "nccl" (NCCL's sends and receives, stream-ordered, one GPU per process;
/// chosen when a distributed matrix was made on a device and NCCL can be
/// used, see STRATA_DEVICE_TRANSPORT in docs/guide.md), "cuda-aware" (MPI
/// reads and writes device buffers itself), "staged through host" (device
/// data is copied to pinned host buffers and back around each message), or
/// "single process" (nothing is sent).
const char* device_transfer(const Communicator& comm) noexcept;

/// Why `comm`'s device data is not exchanged through NCCL ("" when it is,
/// or no distributed matrix has been made on a device yet): for example
/// that two processes share one GPU, or that this build has no NCCL.
std::string device_transfer_reason(const Communicator& comm);

}  // namespace strata
