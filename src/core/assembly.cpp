// The assemblers of strata/matrix/assembly.hpp. One engine serves all three:
// a scalar matrix is a block matrix of 1x1 blocks, and a vector is a matrix
// with one column whose pattern is dense (every position exists from the
// start). The engine checks batches, keeps the stash and the analysis of
// the last assembly, and runs the stages of the paper's algorithm through
// kernels::assembly; the public classes own the assembled object.

#include "strata/matrix/assembly.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/matrix/assembly_kernels.hpp"

namespace strata {

namespace detail {

namespace {

using kernels::assembly::key_type;

std::string format_value(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%.17g", v);
  return buffer;
}

/// Bits needed to store any value in [0, count).
int bits_for(size_type count) {
  return count <= 1 ? 0 : static_cast<int>(std::bit_width(static_cast<std::uint64_t>(count - 1)));
}

template <class X>
void copy_on(const Executor& exec, X* dst, const X* src, size_type count) {
  if (count > 0) copy_bytes(dst, exec, src, exec, static_cast<std::size_t>(count) * sizeof(X));
}

/// A copy of a[0..count) in an array of exactly `count` elements.
template <class X>
Array<X> exact_copy(const Array<X>& a, size_type count) {
  Array<X> result(a.executor(), count);
  copy_on(a.executor(), result.data(), a.data(), count);
  return result;
}

/// Grows `a` to `capacity` elements, keeping its first `used` ones.
template <class X>
void regrow(Array<X>& a, size_type used, size_type capacity) {
  Array<X> bigger(a.executor(), capacity);
  copy_on(a.executor(), bigger.data(), a.data(), used);
  a = std::move(bigger);
}

}  // namespace

/// The stored pattern an assembly applies to. For a dense target (a vector)
/// row_ptr and col_idx are null and every position < positions exists.
template <class T>
struct StoredPattern {
  size_type positions = 0;
  const offset_type* row_ptr = nullptr;
  const index_type* col_idx = nullptr;
  const T* values = nullptr;
};

/// What assemble() hands back: new values, and a new pattern when it changed.
template <class T>
struct AssemblyOutcome {
  std::optional<Array<T>> values;  // empty: nothing changed
  std::optional<Array<offset_type>> row_ptr;
  std::optional<Array<index_type>> col_idx;
};

template <class T>
class AssemblyEngine {
 public:
  /// `who` names the public class in messages; global_cols == 0 and dense
  /// for vectors.
  AssemblyEngine(Executor exec, const char* who, size_type global_rows, size_type global_cols,
                 int block, bool dense, const AssemblyOptions& options)
      : exec_(std::move(exec)),
        who_(who),
        global_rows_(global_rows),
        global_cols_(global_cols),
        block_(block),
        dense_(dense),
        growth_(options.growth_factor),
        initial_capacity_(options.initial_capacity),
        keys_(exec_, 0),
        values_(exec_, 0),
        modes_(exec_, 0),
        off_rows_(exec_, 0),
        off_cols_(exec_, 0),
        off_values_(exec_, 0),
        off_modes_(exec_, 0),
        perm_(exec_, 0),
        seg_ptr_(exec_, 0),
        seg_key_(exec_, 0),
        target_(exec_, 0) {
    const std::string w = who_;
    if (global_rows < 0)
      throw invalid_argument(w + ": the size must be >= 0, got " + std::to_string(global_rows));
    if (global_cols < 0)
      throw invalid_argument(w + ": cols must be >= 0, got " + std::to_string(global_cols));
    row_begin_ = options.row_begin;
    row_end_ = options.row_end < 0 ? global_rows : options.row_end;
    if (options.row_end < -1 || row_begin_ < 0 || row_begin_ > row_end_ || row_end_ > global_rows) {
      throw invalid_argument(w + ": the owned rows [row_begin, row_end) = [" +
                             std::to_string(options.row_begin) + ", " +
                             std::to_string(options.row_end) + ") must lie in [0, " +
                             std::to_string(global_rows) + "] (row_end = -1 means all rows)");
    }
    if (!(growth_ > 1.0) || !std::isfinite(growth_)) {
      throw invalid_argument(w + ": growth_factor must be a finite number > 1, got " +
                             format_value(growth_));
    }
    if (initial_capacity_ < 0) {
      throw invalid_argument(w + ": initial_capacity must be >= 0, got " +
                             std::to_string(initial_capacity_));
    }
    col_bits_ = dense_ ? 0 : bits_for(global_cols);
    key_bits_ = bits_for(row_end_ - row_begin_) + col_bits_;
    if (key_bits_ > 64) {
      throw invalid_argument(w + ": " + std::to_string(row_end_ - row_begin_) + " owned rows x " +
                             std::to_string(global_cols) + " columns do not fit a 64-bit key");
    }
  }

  size_type local_rows() const noexcept { return row_end_ - row_begin_; }
  size_type row_begin() const noexcept { return row_begin_; }
  size_type row_end() const noexcept { return row_end_; }
  size_type pending() const noexcept { return count_; }
  size_type off_process_count() const noexcept { return off_count_; }
  const AssemblyReport& report() const noexcept { return report_; }
  int col_bits() const noexcept { return col_bits_; }

  /// Checks a batch, then appends it to the stashes. `cols` is null for
  /// vectors; `function` names the public call in messages.
  void insert(InsertMode mode, const Array<size_type>& rows, const Array<size_type>* cols,
              const Array<T>& values, const char* function, const char* row_name,
              const char* col_name) {
    const std::string where = std::string(who_) + "::" + function;
    const size_type n = rows.size();
    if (cols != nullptr && cols->size() != n) {
      throw invalid_argument(where + ": " + row_name + " has " + std::to_string(n) +
                             " entries but " + col_name + " has " + std::to_string(cols->size()) +
                             "; the arrays of a batch must have the same length");
    }
    if (values.size() != n * block_) {
      throw invalid_argument(where + ": " + row_name + " has " + std::to_string(n) +
                             " entries, so values must have " +
                             (block_ == 1 ? std::to_string(n)
                                          : std::to_string(n) + " x " + std::to_string(block_) +
                                                " = " + std::to_string(n * block_)) +
                             ", but it has " + std::to_string(values.size()));
    }
    check_location(exec_, rows.executor(), row_name, who_);
    if (cols != nullptr) check_location(exec_, cols->executor(), col_name, who_);
    check_location(exec_, values.executor(), "values", who_);
    if (n == 0) return;

    const size_type* col_data = cols != nullptr ? cols->data() : nullptr;
    const auto check = exec_.visit([&](const auto& e) {
      return kernels::assembly::check_batch(e, n, rows.data(), col_data, values.data(), block_,
                                            global_rows_, global_cols_, row_begin_, row_end_);
    });
    if (check.first_bad >= 0) {
      throw invalid_argument(
          describe_bad_entry(where, check.first_bad, rows, cols, values, row_name, col_name));
    }
    const size_type local = n - check.off_process;
    reserve(count_ + local);
    reserve_off(off_count_ + check.off_process, cols != nullptr);
    const kernels::assembly::StashTarget<T> target{
        keys_.data() + count_,
        values_.data() + count_ * block_,
        modes_.data() + count_,
        off_rows_.data() + off_count_,
        cols != nullptr ? off_cols_.data() + off_count_ : nullptr,
        off_values_.data() + off_count_ * block_,
        off_modes_.data() + off_count_};
    exec_.visit([&](const auto& e) {
      kernels::assembly::stash_batch(e, n, rows.data(), col_data, values.data(), block_, row_begin_,
                                     row_end_, col_bits_, static_cast<std::uint8_t>(mode),
                                     check.off_process, target);
    });
    count_ += local;
    off_count_ += check.off_process;
  }

  /// Compresses the stash onto `stored` (see assembly.hpp for the
  /// semantics) and empties the stash.
  AssemblyOutcome<T> assemble(const StoredPattern<T>& stored) {
    report_ = AssemblyReport{};
    report_.entries = count_;
    AssemblyOutcome<T> outcome;
    if (count_ == 0) return outcome;
    const bool has_pattern = dense_ || stored.positions > 0;

    if (analysis_valid_ && analysis_entries_ == count_ && analysis_positions_ == stored.positions) {
      Array<T> out = fresh_values(stored, segments_);
      const size_type mismatches = run_compress(
          perm_, seg_ptr_, seg_key_, segments_, keys_.data(), values_.data(), modes_.data(),
          target_.empty() ? nullptr : target_.data(), stored.values, out.data(), nullptr);
      if (mismatches == 0) {
        report_.positions = segments_;
        report_.reused_pattern = true;
        count_ = 0;
        outcome.values = std::move(out);
        return outcome;
      }
      // The keys changed: analyse afresh below.
    }
    analysis_valid_ = false;

    // Stage 1: stable sort of the stash by (row, col); stage 2: its segments.
    Array<size_type> perm(exec_, count_);
    Array<size_type> seg_ptr(exec_, 0);
    Array<key_type> seg_key(exec_, 0);
    const size_type segments = sort_and_segment(keys_.data(), count_, perm, seg_ptr, seg_key);
    Array<size_type> target(exec_, 0);

    if (!has_pattern) {
      // First assembly: the pattern is the segments themselves.
      Array<offset_type> row_ptr(exec_, local_rows() + 1);
      Array<index_type> col_idx(exec_, segments);
      exec_.visit([&](const auto& e) {
        kernels::assembly::build_pattern(e, local_rows(), segments, seg_key.data(), col_bits_,
                                         row_ptr.data(), col_idx.data());
      });
      Array<T> out(exec_, segments * block_);
      run_compress(perm, seg_ptr, seg_key, segments, nullptr, values_.data(), modes_.data(),
                   nullptr, nullptr, out.data(), nullptr);
      outcome.values = std::move(out);
      outcome.row_ptr = std::move(row_ptr);
      outcome.col_idx = std::move(col_idx);
      report_.pattern_changed = true;
      analysis_positions_ = segments;
    } else {
      target = Array<size_type>(exec_, segments);
      const size_type missing = exec_.visit([&](const auto& e) {
        return kernels::assembly::locate_segments(e, segments, seg_key.data(),
                                                  dense_ ? -1 : col_bits_, stored.row_ptr,
                                                  stored.col_idx, target.data());
      });
      if (missing == 0) {
        // Every position exists: update the stored values.
        Array<T> out = fresh_values(stored, segments);
        run_compress(perm, seg_ptr, seg_key, segments, nullptr, values_.data(), modes_.data(),
                     target.data(), stored.values, out.data(), nullptr);
        outcome.values = std::move(out);
        analysis_positions_ = stored.positions;
      } else {
        merge_into_new_pattern(stored, perm, seg_ptr, seg_key, segments, target, outcome);
        report_.pattern_changed = true;
        analysis_positions_ = outcome.col_idx->size();
      }
      // A target that is the identity needs no array.
      if (!dense_ && segments == analysis_positions_) target = Array<size_type>(exec_, 0);
    }

    perm_ = std::move(perm);
    seg_ptr_ = std::move(seg_ptr);
    seg_key_ = std::move(seg_key);
    target_ = std::move(target);
    segments_ = segments;
    analysis_entries_ = count_;
    analysis_valid_ = true;
    report_.positions = segments;
    count_ = 0;
    return outcome;
  }

  /// Drops what the last assembly learned (the stored object was handed over).
  void forget_pattern() {
    analysis_valid_ = false;
    perm_ = Array<size_type>(exec_, 0);
    seg_ptr_ = Array<size_type>(exec_, 0);
    seg_key_ = Array<key_type>(exec_, 0);
    target_ = Array<size_type>(exec_, 0);
  }

  OffProcessEntries<T> take_off_process(bool with_cols) {
    OffProcessEntries<T> result{
        exact_copy(off_rows_, off_count_),
        with_cols ? exact_copy(off_cols_, off_count_) : Array<size_type>(exec_, 0),
        exact_copy(off_values_, off_count_ * block_), exact_copy(off_modes_, off_count_)};
    off_count_ = 0;
    return result;
  }

 private:
  std::string describe_bad_entry(const std::string& where, size_type i,
                                 const Array<size_type>& rows, const Array<size_type>* cols,
                                 const Array<T>& values, const char* row_name,
                                 const char* col_name) const {
    const auto host = Executor::host();
    size_type row = 0, col = 0;
    std::vector<T> block(static_cast<std::size_t>(block_));
    copy_bytes(&row, host, rows.data() + i, exec_, sizeof(size_type));
    if (cols != nullptr) copy_bytes(&col, host, cols->data() + i, exec_, sizeof(size_type));
    copy_bytes(block.data(), host, values.data() + i * block_, exec_, sizeof(T) * block_);
    // Singular names for the message: "row", "col" / "block row", "index".
    std::string r_name = row_name, c_name = col_name;
    if (!r_name.empty() && r_name.back() == 's') r_name.pop_back();
    if (!c_name.empty() && c_name.back() == 's') c_name.pop_back();
    if (r_name == "indice") r_name = "index";
    std::string entry = where + ": entry " + std::to_string(i) + " of the batch (" + r_name + " " +
                        std::to_string(row);
    if (cols != nullptr) entry += ", " + c_name + " " + std::to_string(col);
    if (block_ == 1) entry += ", value " + format_value(static_cast<double>(block[0]));
    entry += "): ";
    if (row < 0 || row >= global_rows_) {
      return entry + r_name + " " + std::to_string(row) + " is outside [0, " +
             std::to_string(global_rows_) + ")";
    }
    if (cols != nullptr && (col < 0 || col >= global_cols_)) {
      return entry + c_name + " " + std::to_string(col) + " is outside [0, " +
             std::to_string(global_cols_) + ")";
    }
    for (int b = 0; b < block_; ++b) {
      if (!std::isfinite(static_cast<double>(block[b]))) {
        if (block_ == 1) return entry + "the value is NaN or infinite";
        return entry + "value " + std::to_string(b) + " of the block (" +
               format_value(static_cast<double>(block[b])) + ") is NaN or infinite";
      }
    }
    return entry + "rejected";
  }

  /// Makes room for `needed` stashed entries, growing by the factor.
  void reserve(size_type needed) {
    if (needed <= capacity_) return;
    size_type capacity =
        capacity_ == 0
            ? std::max(needed, initial_capacity_)
            : std::max(needed,
                       static_cast<size_type>(std::ceil(static_cast<double>(capacity_) * growth_)));
    regrow(keys_, count_, capacity);
    regrow(values_, count_ * block_, capacity * block_);
    regrow(modes_, count_, capacity);
    capacity_ = capacity;
  }

  void reserve_off(size_type needed, bool with_cols) {
    if (needed <= off_capacity_) return;
    const size_type capacity = std::max(
        needed, static_cast<size_type>(std::ceil(static_cast<double>(off_capacity_) * growth_)));
    regrow(off_rows_, off_count_, capacity);
    if (with_cols) regrow(off_cols_, off_count_, capacity);
    regrow(off_values_, off_count_ * block_, capacity * block_);
    regrow(off_modes_, off_count_, capacity);
    off_capacity_ = capacity;
  }

  /// The output values of an in-place update: the stored ones copied over
  /// unless every position will be written.
  Array<T> fresh_values(const StoredPattern<T>& stored, size_type segments) const {
    Array<T> out(exec_, stored.positions * block_);
    if (segments != stored.positions) {
      copy_on(exec_, out.data(), stored.values, stored.positions * block_);
    }
    return out;
  }

  /// Sorts keys[0..n) (perm: sorted position -> arrival position) and finds
  /// the segments; returns their number.
  size_type sort_and_segment(key_type* keys, size_type n, Array<size_type>& perm,
                             Array<size_type>& seg_ptr, Array<key_type>& seg_key) const {
    return exec_.visit([&](const auto& e) {
      kernels::assembly::sort_entries(e, n, keys, perm.data(), key_bits_);
      Array<size_type> starts_before(exec_, n);
      const size_type segments =
          kernels::assembly::number_segments(e, n, keys, starts_before.data());
      seg_ptr = Array<size_type>(exec_, segments + 1);
      seg_key = Array<key_type>(exec_, segments);
      kernels::assembly::find_segments(e, n, keys, starts_before.data(), segments, seg_ptr.data(),
                                       seg_key.data());
      return segments;
    });
  }

  size_type run_compress(const Array<size_type>& perm, const Array<size_type>& seg_ptr,
                         const Array<key_type>& seg_key, size_type segments,
                         const key_type* verify_keys, const T* values, const std::uint8_t* modes,
                         const size_type* target, const T* old_values, T* out,
                         std::uint8_t* out_modes) const {
    const kernels::assembly::CompressArgs<T> args{
        segments, block_, seg_ptr.data(), seg_key.data(), perm.data(), verify_keys,
        values,   modes,  target,         old_values,     out,         out_modes};
    return exec_.visit([&](const auto& e) { return kernels::assembly::compress(e, args); });
  }

  /// Some positions are new: the stored entries (as adds, first) and the
  /// compressed stash (with its set flags, after them) are compressed
  /// together into a new pattern, so a set still replaces a stored value and
  /// adds still add to it. `target` receives the stash segments' positions
  /// in the new pattern.
  void merge_into_new_pattern(const StoredPattern<T>& stored, const Array<size_type>& perm,
                              const Array<size_type>& seg_ptr, const Array<key_type>& seg_key,
                              size_type segments, Array<size_type>& target,
                              AssemblyOutcome<T>& outcome) const {
    const size_type old_n = stored.positions;
    const size_type n = old_n + segments;
    Array<T> merged_values(exec_, n * block_);
    Array<std::uint8_t> merged_modes(exec_, n);
    run_compress(perm, seg_ptr, seg_key, segments, nullptr, values_.data(), modes_.data(), nullptr,
                 nullptr, merged_values.data() + old_n * block_, merged_modes.data() + old_n);
    copy_on(exec_, merged_values.data(), stored.values, old_n * block_);
    strata::detail::fill(exec_, merged_modes.data(), old_n, std::uint8_t{0});
    Array<key_type> merged_keys(exec_, n);
    exec_.visit([&](const auto& e) {
      kernels::assembly::pattern_keys(e, local_rows(), stored.row_ptr, stored.col_idx, col_bits_,
                                      merged_keys.data());
    });
    copy_on(exec_, merged_keys.data() + old_n, seg_key.data(), segments);

    Array<size_type> merged_perm(exec_, n);
    Array<size_type> merged_ptr(exec_, 0);
    Array<key_type> merged_seg_key(exec_, 0);
    const size_type positions =
        sort_and_segment(merged_keys.data(), n, merged_perm, merged_ptr, merged_seg_key);
    Array<offset_type> row_ptr(exec_, local_rows() + 1);
    Array<index_type> col_idx(exec_, positions);
    exec_.visit([&](const auto& e) {
      kernels::assembly::build_pattern(e, local_rows(), positions, merged_seg_key.data(), col_bits_,
                                       row_ptr.data(), col_idx.data());
    });
    Array<T> out(exec_, positions * block_);
    run_compress(merged_perm, merged_ptr, merged_seg_key, positions, nullptr, merged_values.data(),
                 merged_modes.data(), nullptr, nullptr, out.data(), nullptr);
    exec_.visit([&](const auto& e) {
      kernels::assembly::locate_segments(e, segments, seg_key.data(), col_bits_, row_ptr.data(),
                                         col_idx.data(), target.data());
    });
    outcome.values = std::move(out);
    outcome.row_ptr = std::move(row_ptr);
    outcome.col_idx = std::move(col_idx);
  }

  Executor exec_;
  const char* who_;
  size_type global_rows_, global_cols_;
  size_type row_begin_ = 0, row_end_ = 0;
  int block_;
  bool dense_;
  int col_bits_ = 0, key_bits_ = 0;
  double growth_;
  size_type initial_capacity_;

  // The stash of owned entries: keys, values (block_ each), modes.
  Array<key_type> keys_;
  Array<T> values_;
  Array<std::uint8_t> modes_;
  size_type count_ = 0, capacity_ = 0;
  // Entries of rows owned elsewhere, with global indices.
  Array<size_type> off_rows_, off_cols_;
  Array<T> off_values_;
  Array<std::uint8_t> off_modes_;
  size_type off_count_ = 0, off_capacity_ = 0;

  // The analysis of the last assembly, reused while the stash keys repeat.
  bool analysis_valid_ = false;
  size_type analysis_entries_ = 0;
  size_type analysis_positions_ = 0;
  size_type segments_ = 0;
  Array<size_type> perm_;
  Array<size_type> seg_ptr_;
  Array<key_type> seg_key_;
  Array<size_type> target_;  // empty: segment s is position s

  AssemblyReport report_;
};

}  // namespace detail

namespace {

template <class T>
CsrMatrix<T> empty_csr(const Executor& exec, size_type rows, size_type cols) {
  return CsrMatrix<T>(rows, cols, Array<offset_type>(exec, rows + 1, offset_type{0}),
                      Array<index_type>(exec, 0), Array<T>(exec, 0));
}

template <class T>
BsrMatrix<T> empty_bsr(const Executor& exec, size_type block_rows, size_type block_cols, int r,
                       int c) {
  return BsrMatrix<T>(block_rows, block_cols, r, c,
                      Array<offset_type>(exec, block_rows + 1, offset_type{0}),
                      Array<index_type>(exec, 0), Array<T>(exec, 0));
}

}  // namespace

// ---------------------------------------------------------------- MatrixAssembler

template <class T>
MatrixAssembler<T>::MatrixAssembler(Executor exec, size_type rows, size_type cols,
                                    const AssemblyOptions& options)
    : engine_(std::make_unique<detail::AssemblyEngine<T>>(exec, "MatrixAssembler", rows, cols, 1,
                                                          false, options)) {
  checked_index(cols, "MatrixAssembler: cols");
  matrix_ = empty_csr<T>(exec, engine_->local_rows(), cols);
}

template <class T>
MatrixAssembler<T>::~MatrixAssembler() = default;
template <class T>
MatrixAssembler<T>::MatrixAssembler(MatrixAssembler&&) noexcept = default;
template <class T>
MatrixAssembler<T>& MatrixAssembler<T>::operator=(MatrixAssembler&&) noexcept = default;

template <class T>
void MatrixAssembler<T>::insert(InsertMode mode, const Array<size_type>& rows,
                                const Array<size_type>& cols, const Array<T>& values) {
  engine_->insert(mode, rows, &cols, values, mode == InsertMode::add ? "add_values" : "set_values",
                  "rows", "cols");
}

template <class T>
void MatrixAssembler<T>::assemble() {
  const detail::StoredPattern<T> stored{matrix_.nnz(), matrix_.row_ptr().data(),
                                        matrix_.col_idx().data(), matrix_.values().data()};
  auto outcome = engine_->assemble(stored);
  if (!outcome.values) return;
  if (outcome.row_ptr) {
    matrix_ = CsrMatrix<T>(matrix_.rows(), matrix_.cols(), std::move(*outcome.row_ptr),
                           std::move(*outcome.col_idx), std::move(*outcome.values));
  } else {
    matrix_.values() = std::move(*outcome.values);
  }
}

template <class T>
CsrMatrix<T> MatrixAssembler<T>::release() {
  CsrMatrix<T> result = std::move(matrix_);
  matrix_ = empty_csr<T>(result.executor(), result.rows(), result.cols());
  engine_->forget_pattern();
  return result;
}

template <class T>
void MatrixAssembler<T>::fill_values(T value) {
  matrix_.values().fill(value);
}

template <class T>
size_type MatrixAssembler<T>::pending() const noexcept {
  return engine_->pending();
}
template <class T>
const AssemblyReport& MatrixAssembler<T>::last_assembly() const noexcept {
  return engine_->report();
}
template <class T>
size_type MatrixAssembler<T>::off_process_count() const noexcept {
  return engine_->off_process_count();
}
template <class T>
OffProcessEntries<T> MatrixAssembler<T>::take_off_process() {
  return engine_->take_off_process(true);
}
template <class T>
size_type MatrixAssembler<T>::row_begin() const noexcept {
  return engine_->row_begin();
}
template <class T>
size_type MatrixAssembler<T>::row_end() const noexcept {
  return engine_->row_end();
}

// ---------------------------------------------------------------- BlockMatrixAssembler

template <class T>
BlockMatrixAssembler<T>::BlockMatrixAssembler(Executor exec, size_type block_rows,
                                              size_type block_cols, int row_block_size,
                                              int col_block_size, const AssemblyOptions& options) {
  if (row_block_size < 1 || col_block_size < 1) {
    throw invalid_argument("BlockMatrixAssembler: block sizes must be >= 1, got " +
                           std::to_string(row_block_size) + " x " + std::to_string(col_block_size));
  }
  engine_ = std::make_unique<detail::AssemblyEngine<T>>(exec, "BlockMatrixAssembler", block_rows,
                                                        block_cols, row_block_size * col_block_size,
                                                        false, options);
  matrix_ = empty_bsr<T>(exec, engine_->local_rows(), block_cols, row_block_size, col_block_size);
}

template <class T>
BlockMatrixAssembler<T>::~BlockMatrixAssembler() = default;
template <class T>
BlockMatrixAssembler<T>::BlockMatrixAssembler(BlockMatrixAssembler&&) noexcept = default;
template <class T>
BlockMatrixAssembler<T>& BlockMatrixAssembler<T>::operator=(BlockMatrixAssembler&&) noexcept =
    default;

template <class T>
void BlockMatrixAssembler<T>::insert(InsertMode mode, const Array<size_type>& block_rows,
                                     const Array<size_type>& block_cols, const Array<T>& values) {
  engine_->insert(mode, block_rows, &block_cols, values,
                  mode == InsertMode::add ? "add_blocks" : "set_blocks", "block rows",
                  "block cols");
}

template <class T>
void BlockMatrixAssembler<T>::assemble() {
  const detail::StoredPattern<T> stored{matrix_.num_blocks(), matrix_.row_ptr().data(),
                                        matrix_.col_idx().data(), matrix_.values().data()};
  auto outcome = engine_->assemble(stored);
  if (!outcome.values) return;
  if (outcome.row_ptr) {
    matrix_ = BsrMatrix<T>(matrix_.block_rows(), matrix_.block_cols(), matrix_.row_block_size(),
                           matrix_.col_block_size(), std::move(*outcome.row_ptr),
                           std::move(*outcome.col_idx), std::move(*outcome.values));
  } else {
    matrix_.values() = std::move(*outcome.values);
  }
}

template <class T>
BsrMatrix<T> BlockMatrixAssembler<T>::release() {
  BsrMatrix<T> result = std::move(matrix_);
  matrix_ = empty_bsr<T>(result.executor(), result.block_rows(), result.block_cols(),
                         result.row_block_size(), result.col_block_size());
  engine_->forget_pattern();
  return result;
}

template <class T>
void BlockMatrixAssembler<T>::fill_values(T value) {
  matrix_.values().fill(value);
}

template <class T>
size_type BlockMatrixAssembler<T>::pending() const noexcept {
  return engine_->pending();
}
template <class T>
const AssemblyReport& BlockMatrixAssembler<T>::last_assembly() const noexcept {
  return engine_->report();
}
template <class T>
size_type BlockMatrixAssembler<T>::off_process_count() const noexcept {
  return engine_->off_process_count();
}
template <class T>
OffProcessEntries<T> BlockMatrixAssembler<T>::take_off_process() {
  return engine_->take_off_process(true);
}
template <class T>
size_type BlockMatrixAssembler<T>::row_begin() const noexcept {
  return engine_->row_begin();
}
template <class T>
size_type BlockMatrixAssembler<T>::row_end() const noexcept {
  return engine_->row_end();
}

// ---------------------------------------------------------------- VectorAssembler

template <class T>
VectorAssembler<T>::VectorAssembler(Executor exec, size_type size, const AssemblyOptions& options)
    : engine_(std::make_unique<detail::AssemblyEngine<T>>(exec, "VectorAssembler", size, 0, 1, true,
                                                          options)),
      vector_(exec, engine_->local_rows(), T{0}) {}

template <class T>
VectorAssembler<T>::~VectorAssembler() = default;
template <class T>
VectorAssembler<T>::VectorAssembler(VectorAssembler&&) noexcept = default;
template <class T>
VectorAssembler<T>& VectorAssembler<T>::operator=(VectorAssembler&&) noexcept = default;

template <class T>
void VectorAssembler<T>::insert(InsertMode mode, const Array<size_type>& indices,
                                const Array<T>& values) {
  engine_->insert(mode, indices, nullptr, values,
                  mode == InsertMode::add ? "add_values" : "set_values", "indices", "");
}

template <class T>
void VectorAssembler<T>::assemble() {
  const detail::StoredPattern<T> stored{vector_.size(), nullptr, nullptr, vector_.data()};
  auto outcome = engine_->assemble(stored);
  if (outcome.values) vector_ = Vector<T>(std::move(*outcome.values));
}

template <class T>
Vector<T> VectorAssembler<T>::release() {
  Vector<T> result = std::move(vector_);
  vector_ = Vector<T>(result.executor(), engine_->local_rows(), T{0});
  engine_->forget_pattern();
  return result;
}

template <class T>
void VectorAssembler<T>::fill_values(T value) {
  vector_.fill(value);
}

template <class T>
size_type VectorAssembler<T>::pending() const noexcept {
  return engine_->pending();
}
template <class T>
const AssemblyReport& VectorAssembler<T>::last_assembly() const noexcept {
  return engine_->report();
}
template <class T>
size_type VectorAssembler<T>::off_process_count() const noexcept {
  return engine_->off_process_count();
}
template <class T>
OffProcessEntries<T> VectorAssembler<T>::take_off_process() {
  return engine_->take_off_process(false);
}
template <class T>
size_type VectorAssembler<T>::row_begin() const noexcept {
  return engine_->row_begin();
}
template <class T>
size_type VectorAssembler<T>::row_end() const noexcept {
  return engine_->row_end();
}

template class MatrixAssembler<float>;
template class MatrixAssembler<double>;
template class BlockMatrixAssembler<float>;
template class BlockMatrixAssembler<double>;
template class VectorAssembler<float>;
template class VectorAssembler<double>;

}  // namespace strata
