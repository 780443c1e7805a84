// CusparseSpsv in a build without CUDA: constructing one says so.

#include "core/cusparse_triangular_reference.hpp"

namespace strata {

struct CusparseSpsv::Impl {};

CusparseSpsv::CusparseSpsv(const CsrMatrix<double>&, Triangle, bool) {
  throw not_compiled("CusparseSpsv: this build of Strata has no CUDA backend");
}
CusparseSpsv::~CusparseSpsv() = default;
void CusparseSpsv::solve(const Vector<double>&, Vector<double>&) {
  throw not_compiled("CusparseSpsv: this build of Strata has no CUDA backend");
}
std::size_t CusparseSpsv::buffer_bytes() const noexcept { return 0; }

}  // namespace strata
