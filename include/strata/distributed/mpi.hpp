#pragma once
/// \file
/// The one Strata header that includes mpi.h: for MPI programs, to hand
/// their communicator to Strata. Nothing else in Strata's public headers
/// names an MPI type (strata/distributed/communicator.hpp says why), so this
/// header is included only by programs that use MPI themselves, and they
/// find and link MPI as they do already.

#include <mpi.h>

#include "strata/config.hpp"
#include "strata/distributed/communicator.hpp"

#if !STRATA_WITH_MPI
#error \
    "strata/distributed/mpi.hpp: this Strata was built without MPI (configure with -DSTRATA_WITH_MPI=ON or AUTO)"
#endif

namespace strata {

/// A Communicator for `comm` (Strata duplicates it; the program keeps and
/// frees its own). Collective over comm. Throws invalid_argument for
/// MPI_COMM_NULL or when MPI is not initialized.
inline Communicator make_communicator(MPI_Comm comm) {
  return Communicator::from_mpi_comm_address(&comm);
}

}  // namespace strata
