// Boxes, grids and stencils: argument checks that name the bad value.

#include "strata/structured/grid.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>

#include "strata/core/error.hpp"

namespace strata::structured {

// Built by appending: GCC 12's -Wrestrict misfires on "(" + std::string.
std::string to_string(const Index& index) {
  std::string s(1, '(');
  for (int d = 0; d < 3; ++d) {
    if (d > 0) s.append(", ");
    s.append(std::to_string(index[d]));
  }
  s.push_back(')');
  return s;
}

std::string to_string(const Box& box) {
  std::string s(1, '[');
  s.append(to_string(box.lower)).append(", ").append(to_string(box.upper)).push_back(']');
  return s;
}

bool Box::contains(const Index& point) const noexcept {
  for (int d = 0; d < 3; ++d) {
    if (point[d] < lower[d] || point[d] > upper[d]) return false;
  }
  return true;
}

bool Box::contains(const Box& other) const noexcept {
  if (other.empty()) return true;
  return contains(other.lower) && contains(other.upper);
}

namespace {
void check_ndim(int ndim, const char* who) {
  require(ndim == 2 || ndim == 3,
          std::string(who) + ": ndim must be 2 or 3, got " + std::to_string(ndim));
}
}  // namespace

StructGrid::StructGrid(int ndim, std::vector<Box> boxes, std::array<bool, 3> periodic)
    : ndim_(ndim), boxes_(std::move(boxes)), periodic_(periodic) {
  check_ndim(ndim, "StructGrid");
  require(!boxes_.empty(), "StructGrid: boxes must not be empty, got 0 boxes");
  if (boxes_.size() > 1) {
    throw not_implemented("StructGrid: this version takes one box, got " +
                          std::to_string(boxes_.size()) +
                          " (several boxes per grid are not implemented yet)");
  }
  for (std::size_t b = 0; b < boxes_.size(); ++b) {
    const Box& box = boxes_[b];
    const std::string name = "StructGrid: boxes[" + std::to_string(b) + "] = " + to_string(box);
    for (int d = 0; d < 3; ++d) {
      require(box.upper[d] >= box.lower[d],
              name + " is empty in direction " + std::to_string(d) +
                  " (upper must be >= lower in every direction)");
    }
    if (ndim == 2) {
      require(box.lower[2] == 0 && box.upper[2] == 0,
              name + ": a 2D box must have lower[2] == upper[2] == 0");
    }
    // Index arithmetic of the kernels is 64-bit, CSR columns 32-bit: keep
    // the cell count within what to_csr() can number.
    require(box.volume() <= std::numeric_limits<index_type>::max(),
            name + " has " + std::to_string(box.volume()) + " cells, more than " +
                std::to_string(std::numeric_limits<index_type>::max()));
  }
  require(ndim == 3 || !periodic_[2], "StructGrid: periodic[2] must be false for a 2D grid");
}

StructGrid StructGrid::from_extents(int ndim, std::array<std::int64_t, 3> extents,
                                    std::array<bool, 3> periodic) {
  check_ndim(ndim, "StructGrid::from_extents");
  for (int d = 0; d < 3; ++d) {
    require(extents[d] >= 1, "StructGrid::from_extents: extents[" + std::to_string(d) +
                                 "] must be >= 1, got " + std::to_string(extents[d]));
  }
  require(ndim == 3 || extents[2] == 1, "StructGrid::from_extents: extents[2] must be 1 in 2D, got " +
                                            std::to_string(extents[2]));
  Box box{{0, 0, 0}, {extents[0] - 1, extents[1] - 1, extents[2] - 1}};
  return StructGrid(ndim, {box}, periodic);
}

Stencil::Stencil(int ndim, std::vector<Index> offsets) : ndim_(ndim), offsets_(std::move(offsets)) {
  check_ndim(ndim, "Stencil");
  require(!offsets_.empty(), "Stencil: offsets must not be empty");
  require(static_cast<int>(offsets_.size()) <= max_entries,
          "Stencil: at most " + std::to_string(max_entries) + " offsets, got " +
              std::to_string(offsets_.size()));
  for (std::size_t k = 0; k < offsets_.size(); ++k) {
    const Index& o = offsets_[k];
    const std::string name = "Stencil: offsets[" + std::to_string(k) + "] = " + to_string(o);
    for (int d = 0; d < 3; ++d) {
      require(std::abs(o[d]) <= max_reach,
              name + " reaches " + std::to_string(std::abs(o[d])) + " cells in direction " +
                  std::to_string(d) + ", more than the ghost width limit " +
                  std::to_string(max_reach));
      reach_ = std::max(reach_, static_cast<int>(std::abs(o[d])));
    }
    require(ndim == 3 || o[2] == 0, name + ": a 2D stencil has no z offset");
    for (std::size_t m = 0; m < k; ++m) {
      require(offsets_[m] != o, name + " repeats offsets[" + std::to_string(m) + "]");
    }
  }
}

Stencil Stencil::five_point() {
  return Stencil(2, {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}});
}

Stencil Stencil::seven_point() {
  return Stencil(3, {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}});
}

int Stencil::find(const Index& offset) const noexcept {
  for (int k = 0; k < size(); ++k) {
    if (offsets_[static_cast<std::size_t>(k)] == offset) return k;
  }
  return -1;
}

}  // namespace strata::structured
