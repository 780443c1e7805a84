// Distributed assembly (strata/distributed/assembly.hpp): the local
// assemblers of strata/matrix/assembly.hpp plus the exchange of the entries
// for rows owned elsewhere.

#include "strata/distributed/assembly.hpp"

#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/distributed/communication.hpp"
#include "kernels/distributed/distributed_kernels.hpp"

namespace strata {

namespace {

/// Entries received from other processes, on the host, in rank order.
template <class T>
struct ReceivedEntries {
  std::vector<size_type> rows, cols;
  std::vector<T> values;
  std::vector<std::uint8_t> modes;
};

/// Sends every off-process entry to the owner of its row (see the file
/// comment of the header) and returns what this process receives.
template <class T>
ReceivedEntries<T> exchange_off_process(const RowPartition& partition, OffProcessEntries<T> off,
                                        bool with_cols) {
  const Communicator& comm = partition.communicator();
  const int processes = comm.size();
  const std::vector<size_type> rows = off.rows.to_vector();
  const std::vector<size_type> cols = with_cols ? off.cols.to_vector() : std::vector<size_type>();
  const std::vector<T> values = off.values.to_vector();
  const std::vector<std::uint8_t> modes = off.modes.to_vector();
  const std::size_t n = rows.size();

  // A stable counting sort by owner: each owner's entries keep their order.
  std::vector<size_type> count(static_cast<std::size_t>(processes), 0);
  std::vector<int> owner(n);
  for (std::size_t k = 0; k < n; ++k) {
    owner[k] = partition.owner(rows[k]);
    ++count[static_cast<std::size_t>(owner[k])];
  }
  std::vector<size_type> start(static_cast<std::size_t>(processes) + 1, 0);
  for (int r = 0; r < processes; ++r) {
    start[static_cast<std::size_t>(r) + 1] =
        start[static_cast<std::size_t>(r)] + count[static_cast<std::size_t>(r)];
  }
  ReceivedEntries<T> packed;
  packed.rows.resize(n);
  packed.cols.resize(with_cols ? n : 0);
  packed.values.resize(n);
  packed.modes.resize(n);
  std::vector<size_type> next(start.begin(), start.end() - 1);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t at = static_cast<std::size_t>(next[static_cast<std::size_t>(owner[k])]++);
    packed.rows[at] = rows[k];
    if (with_cols) packed.cols[at] = cols[k];
    packed.values[at] = values[k];
    packed.modes[at] = modes[k];
  }

  const std::vector<size_type> incoming = detail::alltoall_counts(comm, count);
  std::vector<size_type> from(static_cast<std::size_t>(processes) + 1, 0);
  for (int r = 0; r < processes; ++r) {
    from[static_cast<std::size_t>(r) + 1] =
        from[static_cast<std::size_t>(r)] + incoming[static_cast<std::size_t>(r)];
  }
  const std::size_t total = static_cast<std::size_t>(from.back());
  ReceivedEntries<T> received;
  received.rows.resize(total);
  received.cols.resize(with_cols ? total : 0);
  received.values.resize(total);
  received.modes.resize(total);

  detail::RequestSet messages;
  const auto post = [&](auto& arrays, const std::vector<size_type>& offsets, int r, bool send) {
    const std::size_t at = static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]);
    const std::size_t m = static_cast<std::size_t>(offsets[static_cast<std::size_t>(r) + 1]) - at;
    const auto one = [&](auto& v) {
      using V = typename std::decay_t<decltype(v)>::value_type;
      if (send) {
        messages.send(comm, v.data() + at, m * sizeof(V), r, detail::Tag::assembly);
      } else {
        messages.receive(comm, v.data() + at, m * sizeof(V), r, detail::Tag::assembly);
      }
    };
    one(arrays.rows);
    if (with_cols) one(arrays.cols);
    one(arrays.values);
    one(arrays.modes);
  };
  for (int r = 0; r < processes; ++r) {
    if (incoming[static_cast<std::size_t>(r)] > 0) post(received, from, r, false);
  }
  for (int r = 0; r < processes; ++r) {
    if (count[static_cast<std::size_t>(r)] > 0) post(packed, start, r, true);
  }
  messages.wait_all();
  return received;
}

/// Calls insert(mode, first, last) for each maximal run [first, last) of
/// received entries with one mode, in order (the assemblers take one mode
/// per batch; runs keep the arrival order that the semantics depend on).
template <class T, class Insert>
void insert_in_runs(const ReceivedEntries<T>& received, Insert&& insert) {
  const std::size_t n = received.modes.size();
  std::size_t first = 0;
  while (first < n) {
    std::size_t last = first + 1;
    while (last < n && received.modes[last] == received.modes[first]) ++last;
    insert(received.modes[first] == 0 ? InsertMode::add : InsertMode::set, first, last);
    first = last;
  }
}

template <class X>
Array<X> slice(const Executor& exec, const std::vector<X>& v, std::size_t first, std::size_t last) {
  return Array<X>(exec, Span<const X>(v.data() + first, last - first));
}

AssemblyOptions owned_rows(const RowPartition& partition, AssemblyOptions options) {
  options.row_begin = partition.begin();
  options.row_end = partition.end();
  return options;
}

}  // namespace

// ---------------------------------------------------------------- matrix

template <class T>
DistributedMatrixAssembler<T>::DistributedMatrixAssembler(RowPartition partition,
                                                          const Executor& exec,
                                                          const AssemblyOptions& options)
    : partition_(std::move(partition)),
      local_(exec, partition_.global_size(), partition_.global_size(),
             owned_rows(partition_, options)) {}

template <class T>
void DistributedMatrixAssembler<T>::assemble() {
  const ReceivedEntries<T> received =
      exchange_off_process(partition_, local_.take_off_process(), true);
  received_ = static_cast<size_type>(received.rows.size());
  const Executor& exec = local_.executor();
  insert_in_runs(received, [&](InsertMode mode, std::size_t first, std::size_t last) {
    local_.insert(mode, slice(exec, received.rows, first, last),
                  slice(exec, received.cols, first, last),
                  slice(exec, received.values, first, last));
  });
  local_.assemble();
}

template <class T>
DistributedCsrMatrix<T> DistributedMatrixAssembler<T>::matrix() const {
  const CsrMatrix<T>& owned = local_.matrix();  // owned rows x all columns, global ids
  const Executor& exec = owned.executor();
  Array<global_index> cols(exec, owned.nnz());
  exec.visit([&](const auto& e) {
    kernels::distributed::widen_columns(e, owned.nnz(), owned.col_idx().data(), cols.data());
  });
  const RowBlock<T> rows{owned.row_ptr().clone(), std::move(cols), owned.values().clone()};
  return DistributedCsrMatrix<T>(partition_, rows);
}

// ---------------------------------------------------------------- vector

template <class T>
DistributedVectorAssembler<T>::DistributedVectorAssembler(RowPartition partition,
                                                          const Executor& exec,
                                                          const AssemblyOptions& options)
    : partition_(std::move(partition)),
      local_(exec, partition_.global_size(), owned_rows(partition_, options)) {}

template <class T>
void DistributedVectorAssembler<T>::assemble() {
  const ReceivedEntries<T> received =
      exchange_off_process(partition_, local_.take_off_process(), false);
  received_ = static_cast<size_type>(received.rows.size());
  const Executor& exec = local_.executor();
  insert_in_runs(received, [&](InsertMode mode, std::size_t first, std::size_t last) {
    local_.insert(mode, slice(exec, received.rows, first, last),
                  slice(exec, received.values, first, last));
  });
  local_.assemble();
}

template <class T>
DistributedVector<T> DistributedVectorAssembler<T>::vector() const {
  return DistributedVector<T>(partition_, local_.vector().clone());
}

template class DistributedMatrixAssembler<double>;
template class DistributedVectorAssembler<double>;

}  // namespace strata
