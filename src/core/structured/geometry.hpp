#pragma once
// Kernel arguments from the public structured types (shared by the
// structured matrix and PFMG).

#include <string>

#include "kernels/structured/structured_kernels.hpp"
#include "strata/structured/grid.hpp"
#include "strata/structured/matrix.hpp"

namespace strata::structured::detail {

namespace ks = kernels::structured;

/// The cells of the grid's box, with `ghost` layers in its directions.
inline ks::Geometry geometry(const StructGrid& grid, int ghost) {
  const Box& b = grid.box();
  const size_type gz = grid.ndim() == 3 ? ghost : 0;
  return {{b.extent(0), b.extent(1), b.extent(2)}, {ghost, ghost, gz}};
}

inline ks::Shape shape(const Stencil& stencil) {
  ks::Shape s{};
  s.size = stencil.size();
  for (int e = 0; e < stencil.size(); ++e) {
    for (int d = 0; d < 3; ++d) s.o[e][d] = static_cast<int>(stencil.offset(e)[d]);
  }
  return s;
}

/// Layout of the cells of a ghosted (ghost > 0) or compact array of `geo`.
inline ks::BoxLayout cell_layout(const ks::Geometry& geo, bool ghosted) {
  const size_type dims[3] = {ghosted ? geo.ghosted(0) : geo.n[0], ghosted ? geo.ghosted(1) : geo.n[1],
                             ghosted ? geo.ghosted(2) : geo.n[2]};
  const size_type start[3] = {ghosted ? geo.g[0] : 0, ghosted ? geo.g[1] : 0,
                              ghosted ? geo.g[2] : 0};
  const size_type one[3] = {1, 1, 1};
  return ks::layout_of(dims, start, one);
}

}  // namespace strata::structured::detail
