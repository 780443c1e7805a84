// CusparseSpmv in a build without CUDA: constructing one says so.

#include "core/cusparse_reference.hpp"

namespace strata {

struct CusparseSpmv::Impl {};

CusparseSpmv::CusparseSpmv(const CsrMatrix<double>&) {
  throw not_compiled("CusparseSpmv: this build of Strata has no CUDA backend");
}
CusparseSpmv::~CusparseSpmv() = default;
void CusparseSpmv::apply(double, const Vector<double>&, double, Vector<double>&) {
  throw not_compiled("CusparseSpmv: this build of Strata has no CUDA backend");
}
std::size_t CusparseSpmv::buffer_bytes() const noexcept { return 0; }

}  // namespace strata
