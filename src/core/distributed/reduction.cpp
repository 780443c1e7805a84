// DistributedReduction: partial sums gathered and added in rank order.

#include "strata/distributed/reduction.hpp"

#include <vector>

#include "core/distributed/communication.hpp"

namespace strata {

template <class T>
void DistributedReduction<T>::combine(Span<T> partial_sums) const {
  const int processes = comm_.size();
  if (processes == 1 || partial_sums.empty()) return;
  const std::size_t k = partial_sums.size();
  std::vector<T> all(k * static_cast<std::size_t>(processes));
  detail::allgather(comm_, partial_sums.data(), k * sizeof(T), all.data());
  for (std::size_t j = 0; j < k; ++j) {
    T sum = all[j];
    for (int r = 1; r < processes; ++r) sum += all[static_cast<std::size_t>(r) * k + j];
    partial_sums[j] = sum;
  }
}

template class DistributedReduction<float>;
template class DistributedReduction<double>;

}  // namespace strata
