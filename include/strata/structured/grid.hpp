#pragma once
/// \file
/// The structured interface's index space (the hypre paper, section 3.1):
/// integer index tuples, boxes of cell-centred indices, grids made of boxes
/// (with optional periodicity) and stencils (offsets between indices).
///
/// Everything is three-dimensional underneath: a 2D grid is a 3D one whose
/// boxes have lower[2] == upper[2] == 0 and whose stencils have no z offset,
/// so every kernel has one body for both.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/types.hpp"

namespace strata::structured {

/// A point (i, j, k) of the global index space; k == 0 in 2D.
using Index = std::array<std::int64_t, 3>;

/// "(i, j, k)".
std::string to_string(const Index& index);

/// The cells lower <= (i, j, k) <= upper, both corners included (hypre's
/// box). A box with some upper[d] < lower[d] is empty.
struct Box {
  Index lower{0, 0, 0};
  Index upper{-1, -1, -1};

  /// Number of cells in direction d (0 when empty in d).
  std::int64_t extent(int d) const noexcept {
    const auto n = upper[d] - lower[d] + 1;
    return n > 0 ? n : 0;
  }
  /// Number of cells.
  size_type volume() const noexcept { return extent(0) * extent(1) * extent(2); }
  bool empty() const noexcept { return volume() == 0; }
  /// Whether `other` lies inside this box (an empty box lies anywhere).
  bool contains(const Box& other) const noexcept;
  bool contains(const Index& point) const noexcept;
  friend bool operator==(const Box&, const Box&) = default;
};

/// "[(i, j, k), (i, j, k)]".
std::string to_string(const Box& box);

/// A structured grid: a union of non-intersecting boxes in a 2D or 3D index
/// space, optionally periodic in some directions (period = the bounding
/// box's extent there).
///
/// This version holds exactly one box (one process, one block); the type
/// keeps a list so that several boxes (and, with MPI, boxes owned by other
/// ranks) arrive without changing the interface. A list of several boxes is
/// rejected with not_implemented.
class StructGrid {
 public:
  /// \param ndim 2 or 3.
  /// \param boxes the boxes; each must be non-empty and, in 2D, have
  ///        lower[2] == upper[2] == 0.
  /// \param periodic per direction; in 2D periodic[2] must be false.
  StructGrid(int ndim, std::vector<Box> boxes, std::array<bool, 3> periodic = {false, false, false});

  /// A one-box grid with lower corner 0 and `extents` cells per direction
  /// (extents[2] must be 1 in 2D).
  static StructGrid from_extents(int ndim, std::array<std::int64_t, 3> extents,
                                 std::array<bool, 3> periodic = {false, false, false});

  int ndim() const noexcept { return ndim_; }
  const std::vector<Box>& boxes() const noexcept { return boxes_; }
  /// The box of this one-box version.
  const Box& box() const noexcept { return boxes_.front(); }
  bool periodic(int d) const noexcept { return periodic_[d]; }
  const std::array<bool, 3>& periodic() const noexcept { return periodic_; }
  bool any_periodic() const noexcept { return periodic_[0] || periodic_[1] || periodic_[2]; }
  /// Number of cells (unknowns per variable).
  size_type points() const noexcept { return box().volume(); }
  friend bool operator==(const StructGrid&, const StructGrid&) = default;

 private:
  int ndim_ = 3;
  std::vector<Box> boxes_;
  std::array<bool, 3> periodic_{false, false, false};
};

/// A stencil: the offsets from a cell to the cells its matrix row couples
/// to, e.g. the 2D five-point stencil {(0,0), (-1,0), (1,0), (0,-1), (0,1)}.
/// Entry k of a StructMatrix holds the coefficient of offset k.
class Stencil {
 public:
  /// At most max_entries distinct offsets; in 2D every offset has z == 0;
  /// each component within [-max_reach, max_reach].
  Stencil(int ndim, std::vector<Index> offsets);

  /// Largest number of entries (27 for the full 3x3x3 box, and room for
  /// reach-2 stencils such as fourth-order 13-point ones).
  static constexpr int max_entries = 64;
  /// Largest |component| of an offset; vectors get this many ghost layers.
  static constexpr int max_reach = 2;

  /// 2D five-point and 3D seven-point stencils, centre first, then -x, +x,
  /// -y, +y (, -z, +z).
  static Stencil five_point();
  static Stencil seven_point();

  int ndim() const noexcept { return ndim_; }
  int size() const noexcept { return static_cast<int>(offsets_.size()); }
  const Index& offset(int k) const { return offsets_.at(static_cast<std::size_t>(k)); }
  const std::vector<Index>& offsets() const noexcept { return offsets_; }
  /// The entry of `offset`, or -1 when the stencil has none.
  int find(const Index& offset) const noexcept;
  /// Largest |component| over all offsets.
  int reach() const noexcept { return reach_; }
  friend bool operator==(const Stencil&, const Stencil&) = default;

 private:
  int ndim_ = 3;
  std::vector<Index> offsets_;
  int reach_ = 0;
};

}  // namespace strata::structured
