#pragma once
/// \file
/// Everything public in one include.

#include "strata/config.hpp"
#include "strata/core/array.hpp"
#include "strata/core/error.hpp"
#include "strata/core/executor.hpp"
#include "strata/core/primitives.hpp"
#include "strata/core/types.hpp"
#include "strata/gallery/gallery.hpp"
#include "strata/io/matrix_market.hpp"
#include "strata/matrix/assembly.hpp"
#include "strata/matrix/bsr.hpp"
#include "strata/matrix/csr.hpp"
#include "strata/matrix/galerkin.hpp"
#include "strata/matrix/spgemm.hpp"
#include "strata/matrix/transpose.hpp"
#include "strata/matrix/cusparse_reference.hpp"
#include "strata/matrix/vector.hpp"
#include "strata/smoother/smoother.hpp"
#include "strata/solver/krylov.hpp"
#include "strata/solver/operator.hpp"
#include "strata/solver/spectral.hpp"
