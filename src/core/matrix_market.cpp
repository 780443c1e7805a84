#include "strata/io/matrix_market.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <sys/stat.h>
#define STRATA_MM_HAVE_MMAP 1
#else
#define STRATA_MM_HAVE_MMAP 0
#endif

#include "strata/config.hpp"
#include "strata/core/error.hpp"
#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

// How a file is read: the whole file is mapped (or read with fread), the
// text after the size line is cut into chunks of whole lines, and two passes
// run over the chunks in parallel. The first counts lines and entries per
// chunk, which gives every chunk its first line number and its first entry
// slot; the second parses each chunk straight into its slots. Line numbers in
// error messages are therefore exact without a second look at the file, and
// nothing is parsed twice.

namespace strata::io {
namespace {

// ------------------------------------------------------------------ threads

// f(begin, end) over [0, n) cut into blocks of `grain`. Blocks are handed out
// dynamically because chunks of a file and rows of a matrix differ in cost.
// An exception may not leave an OpenMP loop, so each block keeps its own and
// the one of the lowest block is rethrown: for chunks of a file, that is the
// error a sequential reader would have met first.
template <class F>
void parallel_blocks(size_type n, size_type grain, F&& f) {
  const size_type blocks = (n + grain - 1) / grain;
  if (blocks <= 1) {
    if (n > 0) f(size_type{0}, n);
    return;
  }
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(blocks));
#if STRATA_WITH_OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
  for (size_type b = 0; b < blocks; ++b) {
    try {
      f(b * grain, std::min(n, (b + 1) * grain));
    } catch (...) {
      errors[static_cast<std::size_t>(b)] = std::current_exception();
    }
  }
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

// Counters bumped from several threads; a plain increment without OpenMP,
// where an atomic would only cost time.
inline offset_type post_increment(offset_type& counter) noexcept {
#if STRATA_WITH_OPENMP
  return std::atomic_ref<offset_type>(counter).fetch_add(1, std::memory_order_relaxed);
#else
  return counter++;
#endif
}

constexpr size_type element_grain = size_type{1} << 16;

// --------------------------------------------------------------------- text

constexpr bool is_blank(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

const char* skip_blanks(const char* p, const char* end) noexcept {
  while (p != end && is_blank(*p)) ++p;
  return p;
}

const char* token_end(const char* p, const char* end) noexcept {
  while (p != end && !is_blank(*p)) ++p;
  return p;
}

const char* line_end(const char* p, const char* end) noexcept {
  const void* newline = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
  return newline != nullptr ? static_cast<const char*>(newline) : end;
}

// Where the line after the one ending at `eol` starts; never past `end`.
const char* next_line(const char* eol, const char* end) noexcept {
  return eol == end ? end : eol + 1;
}

// The first character of the entry on a line, or nullptr for a blank or
// comment line. Both passes over the body must agree on this, or entries
// land in the wrong slots.
const char* entry_start(const char* p, const char* eol) noexcept {
  const char* q = skip_blanks(p, eol);
  return q != eol && *q != '%' ? q : nullptr;
}

// Quoted for a message. A binary file can put anything here, so the text is
// cut short and unprintable bytes are masked.
std::string quote(std::string_view text) {
  constexpr std::size_t max_shown = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < std::min(text.size(), max_shown); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    out += (c >= 0x20 && c < 0x7f) || c == '\t' ? static_cast<char>(c) : '?';
  }
  out += text.size() > max_shown ? "...'" : "'";
  return out;
}

std::string_view token_at(const char* p, const char* eol) {
  return {p, static_cast<std::size_t>(token_end(p, eol) - p)};
}

std::string_view trimmed_line(const char* p, const char* eol) {
  p = skip_blanks(p, eol);
  while (eol != p && is_blank(eol[-1])) --eol;
  return {p, static_cast<std::size_t>(eol - p)};
}

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    const char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y) return false;
  }
  return true;
}

std::vector<std::string_view> split_words(const char* p, const char* eol) {
  std::vector<std::string_view> words;
  for (p = skip_blanks(p, eol); p != eol; p = skip_blanks(p, eol)) {
    const char* e = token_end(p, eol);
    words.emplace_back(p, static_cast<std::size_t>(e - p));
    p = e;
  }
  return words;
}

[[noreturn]] void fail(const std::string& path, size_type line, const std::string& what) {
  throw io_error(path + ":" + std::to_string(line) + ": " + what);
}

// ------------------------------------------------------------------ numbers

// The number must fill its token: "12abc" is a bad number rather than 12
// followed by trailing text, which is the more useful message.
bool ends_token(const char* q, const char* eol) noexcept { return q == eol || is_blank(*q); }

// Returns the end of the integer at p (p != eol), or nullptr.
const char* read_integer(const char* p, const char* eol, size_type& value) noexcept {
  // Indices are short unsigned numbers, and this loop reads them about
  // twice as fast as from_chars; up to 18 digits cannot overflow.
  constexpr std::ptrdiff_t safe_digits = 18;
  std::uint64_t digits = 0;
  const char* q = p;
  while (q != eol && static_cast<unsigned char>(*q - '0') < 10 && q - p < safe_digits) {
    digits = digits * 10 + static_cast<unsigned char>(*q - '0');
    ++q;
  }
  if (q != p && (q == eol || is_blank(*q))) {
    value = static_cast<size_type>(digits);
    return q;
  }
  // Signs, long numbers and bad tokens take the careful path.
  if (*p == '+') {
    ++p;
    if (p == eol || *p == '-') return nullptr;
  }
  const auto [end, ec] = std::from_chars(p, eol, value);
  return ec == std::errc() && ends_token(end, eol) ? end : nullptr;
}

// Returns the end of the real number at p (p != eol), or nullptr.
const char* read_real(const char* p, const char* eol, double& value) {
  const char* start = p;
  if (*p == '+') {
    ++p;
    if (p == eol || *p == '-') return nullptr;
  }
  const auto [q, ec] = std::from_chars(p, eol, value);
  if (ec == std::errc::result_out_of_range) {
    // from_chars refuses 1e-400 as well as 1e400; strtod tells underflow
    // (a zero or subnormal, which is fine) from overflow (inf, refused later
    // where values must be finite). This path is rare, so the copy is cheap.
    const std::string token(start, q);
    value = std::strtod(token.c_str(), nullptr);
  } else if (ec != std::errc()) {
    return nullptr;
  }
  return ends_token(q, eol) ? q : nullptr;
}

const char* field_name(MmField field) noexcept {
  switch (field) {
    case MmField::real:
      return "real";
    case MmField::integer:
      return "integer";
    case MmField::unsigned_integer:
      return "unsigned-integer";
    case MmField::pattern:
      return "pattern";
  }
  return "?";
}

// Returns the end of the value at p (p != eol), or nullptr.
const char* read_value(const char* p, const char* eol, MmField field, double& value) {
  if (field == MmField::real) return read_real(p, eol, value);
  if (field == MmField::unsigned_integer && *p == '-') return nullptr;
  size_type integer = 0;
  const char* q = read_integer(p, eol, integer);
  value = static_cast<double>(integer);
  return q;
}

[[noreturn]] void fail_value(const std::string& path, size_type line, const char* p,
                             const char* eol, MmField field) {
  const std::string token = quote(token_at(p, eol));
  switch (field) {
    case MmField::integer:
      fail(path, line, "bad value " + token + ": the field is integer");
    case MmField::unsigned_integer:
      fail(path, line, "bad value " + token + ": the field is unsigned-integer");
    default:
      fail(path, line, "bad value " + token + ": not a real number");
  }
}

void require_line_end(const std::string& path, size_type line, const char* q, const char* eol) {
  const char* p = skip_blanks(q, eol);
  if (p != eol)
    fail(path, line, "trailing text " + quote(trimmed_line(p, eol)) + " after the entry");
}

// ------------------------------------------------------------------- files

std::FILE* open_for_reading(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) throw io_error(path + ": cannot open for reading: " + std::strerror(errno));
  return file;
}

struct FileCloser {
  void operator()(std::FILE* file) const noexcept { std::fclose(file); }
};
using FileHandle = std::unique_ptr<std::FILE, FileCloser>;

#if STRATA_MM_HAVE_MMAP
// Faults the pages of a mapping in up front, in the kernel, instead of one
// fault per page from the parsing threads (Linux only).
#ifdef MAP_POPULATE
constexpr int populate_flag = MAP_POPULATE;
#else
constexpr int populate_flag = 0;
#endif
#endif

// The whole file in memory. A regular file is mapped, which saves both the
// copy out of the page cache and the zeroing of a fresh buffer as large as
// the file (together a third of the reading time); anything that cannot be
// mapped (a pipe, an empty file) is read with fread.
class FileText {
 public:
  explicit FileText(const std::string& path) {
    const FileHandle file(open_for_reading(path));
#if STRATA_MM_HAVE_MMAP
    struct stat info {};
    if (::fstat(::fileno(file.get()), &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
      const auto bytes = static_cast<std::size_t>(info.st_size);
      void* map =
          ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | populate_flag, ::fileno(file.get()), 0);
      if (map != MAP_FAILED) {
        map_ = static_cast<const char*>(map);
        size_ = bytes;
        return;
      }
    }
#endif
    read_all(path, file.get());
  }
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;
  ~FileText() { release(); }

  const char* begin() const noexcept { return map_ != nullptr ? map_ : data_.get(); }
  const char* end() const noexcept { return begin() + size_; }

  /// Gives the memory back once the text is parsed; the matrix is built
  /// after that, and the text is the largest thing a read holds.
  void release() noexcept {
#if STRATA_MM_HAVE_MMAP
    if (map_ != nullptr) ::munmap(const_cast<char*>(map_), size_);
#endif
    map_ = nullptr;
    data_.reset();
    size_ = 0;
  }

 private:
  void read_all(const std::string& path, std::FILE* file) {
    std::error_code ec;
    const auto announced = std::filesystem::file_size(path, ec);
    // One byte more than the file, so that the first fread already meets
    // the end of the file; a pipe or a file that grows just takes more rounds.
    std::size_t capacity = ec ? std::size_t{1} << 20 : static_cast<std::size_t>(announced) + 1;
    data_ = std::make_unique_for_overwrite<char[]>(capacity);
    for (;;) {
      if (size_ == capacity) {
        auto larger = std::make_unique_for_overwrite<char[]>(2 * capacity);
        std::memcpy(larger.get(), data_.get(), size_);
        data_ = std::move(larger);
        capacity *= 2;
      }
      const std::size_t wanted = capacity - size_;
      const std::size_t got = std::fread(data_.get() + size_, 1, wanted, file);
      size_ += got;
      if (got < wanted) {
        if (std::ferror(file)) throw io_error(path + ": cannot read: " + std::strerror(errno));
        break;
      }
    }
  }

  const char* map_ = nullptr;
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
};

// ------------------------------------------------------------------- header

constexpr const char* banner_form = "'%%MatrixMarket matrix <coordinate|array> <field> <symmetry>'";

// The banner and the size line, and where the entries start.
struct Layout {
  MatrixMarketHeader header;
  size_type size_line = 0;
  const char* body = nullptr;
  size_type body_line = 0;
  // Values the body must hold: the entries of a coordinate file, or the
  // stored part of an array file (a triangle when it is symmetric).
  size_type stored = 0;
};

void parse_banner(const std::string& path, const char* p, const char* eol, MatrixMarketHeader& h) {
  const auto words = split_words(p, eol);
  if (words.empty() || !iequals(words[0], "%%MatrixMarket")) {
    fail(path, 1,
         "missing banner: the file must start with " + std::string(banner_form) + ", found " +
             quote(trimmed_line(p, eol)));
  }
  if (words.size() != 5) {
    fail(path, 1,
         "banner " + quote(trimmed_line(p, eol)) + " has " + std::to_string(words.size()) +
             " words, expected 5: " + banner_form);
  }
  if (!iequals(words[1], "matrix")) {
    fail(path, 1, "unsupported object " + quote(words[1]) + ": only 'matrix' files are read");
  }

  if (iequals(words[2], "coordinate")) {
    h.format = MmFormat::coordinate;
  } else if (iequals(words[2], "array")) {
    h.format = MmFormat::array;
  } else {
    fail(path, 1, "unknown format " + quote(words[2]) + ": expected 'coordinate' or 'array'");
  }

  if (iequals(words[3], "real")) {
    h.field = MmField::real;
  } else if (iequals(words[3], "integer")) {
    h.field = MmField::integer;
  } else if (iequals(words[3], "unsigned-integer")) {
    h.field = MmField::unsigned_integer;
  } else if (iequals(words[3], "pattern")) {
    h.field = MmField::pattern;
  } else if (iequals(words[3], "complex")) {
    fail(path, 1,
         "unsupported field 'complex': Strata reads real, integer, unsigned-integer and pattern");
  } else {
    fail(path, 1,
         "unknown field " + quote(words[3]) +
             ": expected real, integer, unsigned-integer or pattern");
  }

  if (iequals(words[4], "general")) {
    h.symmetry = MmSymmetry::general;
  } else if (iequals(words[4], "symmetric")) {
    h.symmetry = MmSymmetry::symmetric;
  } else if (iequals(words[4], "skew-symmetric")) {
    h.symmetry = MmSymmetry::skew_symmetric;
  } else if (iequals(words[4], "hermitian")) {
    fail(path, 1,
         "unsupported symmetry 'hermitian': Strata reads general, symmetric and skew-symmetric");
  } else {
    fail(path, 1,
         "unknown symmetry " + quote(words[4]) + ": expected general, symmetric or skew-symmetric");
  }

  if (h.format == MmFormat::array && h.field == MmField::pattern) {
    fail(path, 1, "an array file cannot have the field 'pattern'");
  }
}

void parse_size_line(const std::string& path, size_type line, const char* p, const char* eol,
                     Layout& layout) {
  MatrixMarketHeader& h = layout.header;
  const bool coordinate = h.format == MmFormat::coordinate;
  const std::string form = coordinate ? "'<rows> <cols> <entries>'" : "'<rows> <cols>'";
  const auto words = split_words(p, eol);
  if (words.size() != (coordinate ? 3u : 2u)) {
    fail(path, line, "bad size line " + quote(trimmed_line(p, eol)) + ": expected " + form);
  }
  size_type numbers[3] = {0, 0, 0};
  for (std::size_t i = 0; i < words.size(); ++i) {
    const char* end = words[i].data() + words[i].size();
    if (read_integer(words[i].data(), end, numbers[i]) == nullptr || numbers[i] < 0) {
      fail(path, line,
           "bad size line " + quote(trimmed_line(p, eol)) + ": " + quote(words[i]) +
               " is not a non-negative integer (expected " + form + ")");
    }
  }
  h.rows = numbers[0];
  h.cols = numbers[1];
  if (h.symmetry != MmSymmetry::general && h.rows != h.cols) {
    fail(path, line,
         "a " + std::string(h.symmetry == MmSymmetry::symmetric ? "symmetric" : "skew-symmetric") +
             " matrix must be square, the size line says " + std::to_string(h.rows) + " x " +
             std::to_string(h.cols));
  }

  if (coordinate) {
    try {
      checked_index(h.cols, "cols");
    } catch (const invalid_argument& e) {
      fail(path, line, e.message());
    }
    h.entries = numbers[2];
    layout.stored = h.entries;
    return;
  }

  if (h.cols != 0 && h.rows > std::numeric_limits<size_type>::max() / h.cols) {
    fail(path, line,
         "an array of " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
             " values is too large");
  }
  h.entries = h.rows * h.cols;
  // A symmetric array stores the lower triangle, column by column, and a
  // skew-symmetric one leaves out the (zero) diagonal too.
  const size_type n = h.rows;
  switch (h.symmetry) {
    case MmSymmetry::general:
      layout.stored = h.entries;
      break;
    case MmSymmetry::symmetric:
      layout.stored = n / 2 * (n + 1) + (n % 2) * ((n + 1) / 2);
      break;
    case MmSymmetry::skew_symmetric:
      layout.stored = n == 0 ? 0 : (n - 1) / 2 * n + ((n - 1) % 2) * (n / 2);
      break;
  }
}

// Parses the banner, the comments after it and the size line in [begin, end).
Layout parse_header(const std::string& path, const char* begin, const char* end) {
  Layout layout;
  if (begin == end) fail(path, 1, std::string("empty file, expected the banner ") + banner_form);
  const char* eol = line_end(begin, end);
  parse_banner(path, begin, eol, layout.header);

  size_type line = 2;
  for (const char* p = next_line(eol, end); p != end; p = next_line(eol, end), ++line) {
    eol = line_end(p, end);
    if (entry_start(p, eol) == nullptr) continue;
    parse_size_line(path, line, p, eol, layout);
    layout.size_line = line;
    layout.body = next_line(eol, end);
    layout.body_line = line + 1;
    return layout;
  }
  fail(path, line - 1, "the file ends before the size line");
}

// The banner, comments and size line, read line by line so that a header
// query does not read the entries.
std::string read_header_text(const std::string& path) {
  const FileHandle file(open_for_reading(path));
  std::string text;
  for (bool banner = true;;) {
    const std::size_t line_start = text.size();
    // Byte by byte (stdio buffers): fgets cannot say how much it read when
    // the line holds a NUL byte, and appending up to the NUL lost the line
    // (found by fuzzing: back() of an empty string).
    for (int c = std::getc(file.get()); c != EOF; c = std::getc(file.get())) {
      text += static_cast<char>(c);
      if (c == '\n') break;
    }
    if (std::ferror(file.get())) throw io_error(path + ": cannot read: " + std::strerror(errno));
    if (text.size() == line_start) break;
    const char* p = text.data() + line_start;
    const char* eol = line_end(p, text.data() + text.size());
    if (!banner && entry_start(p, eol) != nullptr) break;
    banner = false;
  }
  return text;
}

// --------------------------------------------------------------------- body

// Whole lines of the body; the unit of parallel parsing.
struct Chunk {
  const char* begin = nullptr;
  const char* end = nullptr;
  size_type first_line = 0;
  size_type lines = 0;
  size_type first_entry = 0;
  size_type entries = 0;
};

// The body cut into chunks and counted: where every line and entry is.
struct Body {
  std::vector<Chunk> chunks;
  size_type lines = 0;
  size_type entries = 0;
};

Body scan_body(const char* begin, const char* end, size_type first_line) {
  // A few MB per chunk: enough to amortise the hand-out, small enough to
  // balance the threads on a file of a few hundred MB.
  constexpr std::size_t target_bytes = std::size_t{4} << 20;
  const auto bytes = static_cast<std::size_t>(end - begin);
  const std::size_t count = std::max<std::size_t>(1, bytes / target_bytes);

  Body body;
  body.chunks.resize(count);
  const char* start = begin;
  for (std::size_t k = 0; k < count; ++k) {
    const char* stop = end;
    if (k + 1 < count) {
      // Move the cut to just after a newline, so that chunks hold whole lines.
      const char* guess = begin + bytes / count * (k + 1);
      stop = guess <= start ? start : next_line(line_end(guess - 1, end), end);
    }
    body.chunks[k].begin = start;
    body.chunks[k].end = stop;
    start = stop;
  }

  parallel_blocks(static_cast<size_type>(count), 1, [&](size_type k, size_type) {
    Chunk& c = body.chunks[static_cast<std::size_t>(k)];
    for (const char* p = c.begin; p != c.end;) {
      const char* eol = line_end(p, c.end);
      ++c.lines;
      if (entry_start(p, eol) != nullptr) ++c.entries;
      p = next_line(eol, c.end);
    }
  });

  for (Chunk& c : body.chunks) {
    c.first_line = first_line + body.lines;
    c.first_entry = body.entries;
    body.lines += c.lines;
    body.entries += c.entries;
  }
  return body;
}

// Calls parse_entry(p, eol, slot, line) for every entry line, in parallel
// over chunks, with p at the first non-blank character. Entries beyond
// `stored` are an error; so is a body with fewer. The error reported is the
// first one in the file, as a sequential reader would report it.
template <class ParseEntry>
void parse_body(const std::string& path, const Layout& layout, const Body& body,
                ParseEntry&& parse_entry) {
  const size_type stored = layout.stored;
  parallel_blocks(static_cast<size_type>(body.chunks.size()), 1, [&](size_type k, size_type) {
    const Chunk& c = body.chunks[static_cast<std::size_t>(k)];
    if (c.entries == 0) return;
    size_type line = c.first_line;
    size_type slot = c.first_entry;
    for (const char* p = c.begin; p != c.end; ++line) {
      const char* eol = line_end(p, c.end);
      if (const char* q = entry_start(p, eol)) {
        if (slot == stored) {
          fail(path, line,
               "more entries than the " + std::to_string(stored) + " announced on line " +
                   std::to_string(layout.size_line));
        }
        parse_entry(q, eol, slot, line);
        ++slot;
      }
      p = next_line(eol, c.end);
    }
  });
  if (body.entries < stored) {
    const size_type last_line = layout.body_line + body.lines - 1;
    fail(path, last_line,
         "the file ends after " + std::to_string(body.entries) + " of the " +
             std::to_string(stored) + " entries announced on line " +
             std::to_string(layout.size_line));
  }
}

// ---------------------------------------------------------- resource limits

// Rows (or columns) that no entry fills are legal (an empty row, a trailing
// zero column), but each costs memory that the file does not pay for: a
// size line may announce this many more than its entries can fill.
constexpr size_type max_unfilled_rows = size_type{1} << 20;

std::string megabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", bytes / 1e6);
  return text;
}

// Checks the sizes a size line announces against what the file can hold and
// the memory available, before anything they size is allocated; errors name
// the file and the size line. `body_bytes` is what follows the size line.
void check_announced_sizes(const std::string& path, const Layout& layout,
                           std::size_t body_bytes) {
  const MatrixMarketHeader& h = layout.header;
  const size_type line = layout.size_line;
  const bool coordinate = h.format == MmFormat::coordinate;
  // The shortest line an entry can take, its newline included (the last
  // line may lack one): "i j", "i j v" or "v".
  const size_type min_entry_bytes =
      coordinate ? (h.field == MmField::pattern ? 4 : 6) : size_type{2};
  const char* entry_form =
      coordinate ? (h.field == MmField::pattern ? "'i j'" : "'i j value'") : "'value'";
  const size_type can_hold = (static_cast<size_type>(body_bytes) + 1) / min_entry_bytes;
  if (layout.stored > can_hold) {
    fail(path, line,
         "the size line announces " + std::to_string(layout.stored) + (coordinate ? " entries" : " values") +
             ", but the " + std::to_string(body_bytes) + " bytes after it can hold at most " +
             std::to_string(can_hold) + " (each is a line " + entry_form + " of at least " +
             std::to_string(min_entry_bytes) + " bytes with its newline)");
  }

  double bytes = 0;  // what reading the file allocates, at its peak
  if (coordinate) {
    // Each entry fills one row and one column, two of each when mirrored.
    const bool mirror = h.symmetry != MmSymmetry::general;
    const size_type filled = (mirror ? 2 : 1) * layout.stored;
    const size_type limit = filled + max_unfilled_rows;
    const auto refuse_unfilled = [&](const char* what, size_type count) {
      fail(path, line,
           "the size line announces " + std::to_string(count) + " " + what + " but only " +
               std::to_string(layout.stored) + " entries, which fill at most " +
               std::to_string(filled) + " of them; Strata reads at most " +
               std::to_string(max_unfilled_rows) + " empty " + what + " more (" +
               std::to_string(limit) + " in all), since each costs memory that the file does "
               "not justify");
    };
    if (h.rows > limit) refuse_unfilled("rows", h.rows);
    if (h.cols > limit) refuse_unfilled("columns", h.cols);
    // Triplets (8 + 4 + 8 bytes an entry), then CSR: row offsets, a cursor
    // per row and 12 bytes a stored entry.
    bytes = 20.0 * static_cast<double>(layout.stored) + 16.0 * static_cast<double>(h.rows + 1) +
            12.0 * static_cast<double>(filled);
  } else {
    // The values, and a packed copy of the stored part when symmetric.
    bytes = 8.0 * static_cast<double>(h.entries) +
            (h.symmetry == MmSymmetry::general ? 0.0 : 8.0 * static_cast<double>(layout.stored));
  }
  const std::size_t available = Executor::host().available_memory();
  if (available > 0 && bytes > static_cast<double>(available)) {
    fail(path, line,
         "reading a " + std::to_string(h.rows) + " x " + std::to_string(h.cols) + " matrix with " +
             std::to_string(layout.stored) + (coordinate ? " entries" : " values") +
             " needs about " + megabytes(bytes) + ", but only " +
             megabytes(static_cast<double>(available)) +
             " of host memory is available (MemAvailable in /proc/meminfo)");
  }
}

// A file in memory with its header parsed and its body counted.
struct ParsedFile {
  FileText text;
  Layout layout;
  Body body;

  explicit ParsedFile(const std::string& path)
      : text(path),
        layout(parse_header(path, text.begin(), text.end())),
        body((check_announced_sizes(path, layout,
                                    static_cast<std::size_t>(text.end() - layout.body)),
              scan_body(layout.body, text.end(), layout.body_line))) {}

  // Slots to allocate: a truncated file fills fewer than announced, and a
  // size line announcing billions must not allocate before that is known.
  size_type slots() const noexcept { return std::min(body.entries, layout.stored); }
};

// -------------------------------------------------------------- coordinates

// Entries as they stand in the file, 0-based.
struct Triplets {
  std::unique_ptr<offset_type[]> rows;
  std::unique_ptr<index_type[]> cols;
  std::unique_ptr<double[]> values;
};

Triplets parse_triplets(const std::string& path, const ParsedFile& file) {
  const MatrixMarketHeader& h = file.layout.header;
  const auto n = static_cast<std::size_t>(file.slots());
  Triplets t{std::make_unique_for_overwrite<offset_type[]>(n),
             std::make_unique_for_overwrite<index_type[]>(n),
             std::make_unique_for_overwrite<double[]>(n)};
  const bool skew = h.symmetry == MmSymmetry::skew_symmetric;

  parse_body(path, file.layout, file.body,
             [&](const char* p, const char* eol, size_type slot, size_type line) {
               size_type i = 0;
               const char* q = read_integer(p, eol, i);
               if (q == nullptr) fail(path, line, "bad row index " + quote(token_at(p, eol)));
               if (i < 1 || i > h.rows) {
                 fail(path, line,
                      "row index " + std::to_string(i) + " out of range [1, " +
                          std::to_string(h.rows) + "]");
               }
               p = skip_blanks(q, eol);
               if (p == eol) fail(path, line, "missing column index after the row index");
               size_type j = 0;
               q = read_integer(p, eol, j);
               if (q == nullptr) fail(path, line, "bad column index " + quote(token_at(p, eol)));
               if (j < 1 || j > h.cols) {
                 fail(path, line,
                      "column index " + std::to_string(j) + " out of range [1, " +
                          std::to_string(h.cols) + "]");
               }
               double value = 1.0;
               if (h.field != MmField::pattern) {
                 p = skip_blanks(q, eol);
                 if (p == eol) {
                   fail(path, line,
                        std::string("missing value: the field is ") + field_name(h.field));
                 }
                 q = read_value(p, eol, h.field, value);
                 if (q == nullptr) fail_value(path, line, p, eol, h.field);
                 // CsrMatrix promises finite values (validate() checks it);
                 // here the culprit's line is still known.
                 if (!std::isfinite(value)) {
                   fail(path, line, "value " + quote(token_at(p, eol)) + " is not finite");
                 }
               }
               require_line_end(path, line, q, eol);
               if (h.symmetry != MmSymmetry::general && j > i) {
                 fail(path, line,
                      "entry (" + std::to_string(i) + ", " + std::to_string(j) +
                          ") lies above the diagonal, but a " +
                          (skew ? "skew-symmetric" : "symmetric") +
                          " file stores only the lower triangle (row >= column) and the reader "
                          "mirrors it; list each off-diagonal pair once, as (row, column) with "
                          "row > column, or declare the file 'general'");
               }
               if (skew && i == j) {
                 fail(path, line,
                      "diagonal entry (" + std::to_string(i) + ", " + std::to_string(j) +
                          ") in a skew-symmetric file, whose diagonal is zero");
               }
               const auto s = static_cast<std::size_t>(slot);
               t.rows[s] = i - 1;
               t.cols[s] = static_cast<index_type>(j - 1);
               t.values[s] = value;
             });
  return t;
}

// Column order within a row, ties broken by value: equal columns are
// summed next, and summing in value order gives the same bits whatever
// order the threads filled the row in.
bool entry_less(index_type col_a, double val_a, index_type col_b, double val_b) noexcept {
  return col_a < col_b || (col_a == col_b && val_a < val_b);
}

// Sorts the entries of one row and sums repeated columns into the first of
// them; returns how many distinct columns the row has.
size_type sort_and_merge_row(index_type* cols, double* values, size_type length,
                             std::vector<std::pair<index_type, double>>& scratch) {
  constexpr size_type insertion_limit = 32;
  if (length <= insertion_limit) {
    for (size_type a = 1; a < length; ++a) {
      const index_type c = cols[a];
      const double v = values[a];
      size_type b = a;
      for (; b > 0 && entry_less(c, v, cols[b - 1], values[b - 1]); --b) {
        cols[b] = cols[b - 1];
        values[b] = values[b - 1];
      }
      cols[b] = c;
      values[b] = v;
    }
  } else {
    scratch.resize(static_cast<std::size_t>(length));
    for (size_type a = 0; a < length; ++a)
      scratch[static_cast<std::size_t>(a)] = {cols[a], values[a]};
    std::sort(scratch.begin(), scratch.end(), [](const auto& x, const auto& y) {
      return entry_less(x.first, x.second, y.first, y.second);
    });
    for (size_type a = 0; a < length; ++a) {
      cols[a] = scratch[static_cast<std::size_t>(a)].first;
      values[a] = scratch[static_cast<std::size_t>(a)].second;
    }
  }
  size_type distinct = 0;
  for (size_type a = 0; a < length; ++a) {
    if (distinct > 0 && cols[distinct - 1] == cols[a]) {
      values[distinct - 1] += values[a];
    } else {
      cols[distinct] = cols[a];
      values[distinct] = values[a];
      ++distinct;
    }
  }
  return distinct;
}

// Counting sort of the triplets into rows (mirroring the other triangle of a
// symmetric file), then per-row sort and merge of duplicates.
CsrMatrix<double> assemble_csr(const MatrixMarketHeader& h, const Triplets& t, size_type count) {
  const Executor host = Executor::host();
  const size_type rows = h.rows;
  const bool mirror = h.symmetry != MmSymmetry::general;
  const double mirror_sign = h.symmetry == MmSymmetry::skew_symmetric ? -1.0 : 1.0;

  Array<offset_type> row_ptr(host, rows + 1);
  offset_type* ptr = row_ptr.data();
  parallel_blocks(rows + 1, element_grain,
                  [&](size_type b, size_type e) { std::fill(ptr + b, ptr + e, offset_type{0}); });
  parallel_blocks(count, element_grain, [&](size_type b, size_type e) {
    for (size_type k = b; k < e; ++k) {
      post_increment(ptr[t.rows[k] + 1]);
      if (mirror && t.rows[k] != t.cols[k]) post_increment(ptr[t.cols[k] + 1]);
    }
  });
  for (size_type r = 0; r < rows; ++r) ptr[r + 1] += ptr[r];
  const size_type filled = ptr[rows];

  Array<index_type> col_idx(host, filled);
  Array<double> values(host, filled);
  index_type* cols = col_idx.data();
  double* vals = values.data();
  auto cursor = std::make_unique_for_overwrite<offset_type[]>(static_cast<std::size_t>(rows));
  parallel_blocks(rows, element_grain,
                  [&](size_type b, size_type e) { std::copy(ptr + b, ptr + e, cursor.get() + b); });
  parallel_blocks(count, element_grain, [&](size_type b, size_type e) {
    for (size_type k = b; k < e; ++k) {
      const offset_type r = t.rows[k];
      const index_type c = t.cols[k];
      const offset_type at = post_increment(cursor[r]);
      cols[at] = c;
      vals[at] = t.values[k];
      if (mirror && r != c) {
        const offset_type mirrored = post_increment(cursor[c]);
        cols[mirrored] = static_cast<index_type>(r);
        vals[mirrored] = mirror_sign * t.values[k];
      }
    }
  });

  // cursor[r] now holds the row's distinct column count.
  constexpr size_type row_grain = 4096;
  parallel_blocks(rows, row_grain, [&](size_type b, size_type e) {
    std::vector<std::pair<index_type, double>> scratch;
    for (size_type r = b; r < e; ++r) {
      cursor[r] = sort_and_merge_row(cols + ptr[r], vals + ptr[r], ptr[r + 1] - ptr[r], scratch);
    }
  });
  size_type distinct = 0;
  for (size_type r = 0; r < rows; ++r) distinct += cursor[r];
  if (distinct == filled) {
    return CsrMatrix<double>(rows, h.cols, std::move(row_ptr), std::move(col_idx),
                             std::move(values));
  }

  // Repeated entries were merged: close the gaps they left.
  Array<offset_type> merged_ptr(host, rows + 1);
  offset_type* mptr = merged_ptr.data();
  mptr[0] = 0;
  for (size_type r = 0; r < rows; ++r) mptr[r + 1] = mptr[r] + cursor[r];
  Array<index_type> merged_cols(host, distinct);
  Array<double> merged_values(host, distinct);
  index_type* mcols = merged_cols.data();
  double* mvals = merged_values.data();
  parallel_blocks(rows, row_grain, [&](size_type b, size_type e) {
    for (size_type r = b; r < e; ++r) {
      std::copy(cols + ptr[r], cols + ptr[r] + cursor[r], mcols + mptr[r]);
      std::copy(vals + ptr[r], vals + ptr[r] + cursor[r], mvals + mptr[r]);
    }
  });
  return CsrMatrix<double>(rows, h.cols, std::move(merged_ptr), std::move(merged_cols),
                           std::move(merged_values));
}

// -------------------------------------------------------------------- dense

// Reads an array file, or an n x 1 coordinate file, into the rows * cols
// values (column major) that allocate() returns. The allocation waits until
// the body is known to be complete, so that a short file whose size line
// announces billions of values fails with a message rather than with
// out_of_memory.
template <class Allocate>
void read_dense_values(const std::string& path, const ParsedFile& file, Allocate&& allocate) {
  const MatrixMarketHeader& h = file.layout.header;
  // Not h.entries, which counts stored entries in a coordinate file. The
  // product cannot overflow: the size line was checked for arrays, and a
  // coordinate file gets past the next test only with one column.
  const auto total = static_cast<std::size_t>(h.rows * h.cols);

  if (h.format == MmFormat::coordinate) {
    if (h.cols != 1) {
      fail(path, file.layout.size_line,
           "a coordinate file with " + std::to_string(h.cols) +
               " columns is a sparse matrix (read it with read_matrix_market); only an n x 1 "
               "coordinate file reads as a dense block or vector");
    }
    const Triplets t = parse_triplets(path, file);
    double* dest = allocate();
    std::fill(dest, dest + total, 0.0);
    // In file order, so that repeated entries sum the same way every time.
    // With one column, only a 1 x 1 symmetric file can get here, and its
    // one entry is on the diagonal: nothing to mirror.
    for (size_type k = 0; k < file.slots(); ++k) dest[t.rows[k]] += t.values[k];
    return;
  }

  const auto parse_values_into = [&](double* target) {
    parse_body(path, file.layout, file.body,
               [&](const char* p, const char* eol, size_type slot, size_type line) {
                 double value = 0.0;
                 const char* q = read_value(p, eol, h.field, value);
                 if (q == nullptr) fail_value(path, line, p, eol, h.field);
                 // A right-hand side or a near-null space with NaN or Inf
                 // can only end a solve as non_finite: refuse it here,
                 // where the line is known.
                 if (!std::isfinite(value)) {
                   fail(path, line, "value " + quote(token_at(p, eol)) + " is not finite");
                 }
                 require_line_end(path, line, q, eol);
                 target[slot] = value;
               });
  };
  const bool complete = file.body.entries >= file.layout.stored;
  if (h.symmetry == MmSymmetry::general && complete) {
    parse_values_into(allocate());
    return;
  }
  // A short file is parsed into scratch of its own size, which ends in the
  // error; a symmetric one is parsed packed and expanded below.
  auto packed = std::make_unique_for_overwrite<double[]>(static_cast<std::size_t>(file.slots()));
  parse_values_into(packed.get());

  // The stored lower triangle, column by column; the other triangle mirrors
  // it, with the sign flipped and a zero diagonal when skew-symmetric.
  double* dest = allocate();
  const size_type n = h.rows;
  const bool skew = h.symmetry == MmSymmetry::skew_symmetric;
  std::fill(dest, dest + total, 0.0);
  size_type k = 0;
  for (size_type j = 0; j < n; ++j) {
    for (size_type i = skew ? j + 1 : j; i < n; ++i, ++k) {
      dest[i + j * n] = packed[k];
      dest[j + i * n] = skew ? -packed[k] : packed[k];
    }
  }
}

// ------------------------------------------------------------------ writing

// Writes through fwrite in large pieces; every failure names the file.
class OutputFile {
 public:
  explicit OutputFile(std::string path) : path_(std::move(path)) {
    file_ = std::fopen(path_.c_str(), "wb");
    if (file_ == nullptr) {
      throw io_error(path_ + ": cannot open for writing: " + std::strerror(errno));
    }
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile() {
    if (file_ != nullptr) std::fclose(file_);
  }

  void write(const char* data, std::size_t size) {
    if (size > 0 && std::fwrite(data, 1, size, file_) != size) {
      throw io_error(path_ + ": write failed: " + std::strerror(errno));
    }
  }
  void write(std::string_view text) { write(text.data(), text.size()); }

  void close() {
    std::FILE* file = std::exchange(file_, nullptr);
    if (std::fflush(file) != 0) {
      const int flush_errno = errno;
      std::fclose(file);
      throw io_error(path_ + ": write failed: " + std::strerror(flush_errno));
    }
    if (std::fclose(file) != 0) throw io_error(path_ + ": write failed: " + std::strerror(errno));
  }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

// Bytes one formatted number may take: 20 for an int64, 24 for %.17g.
constexpr std::size_t max_integer_chars = 20;
constexpr std::size_t max_real_chars = 24;

char* put_integer(char* out, size_type value) noexcept {
  return std::to_chars(out, out + max_integer_chars, value).ptr;
}

// 17 significant digits: what the reader needs to get the same double back.
char* put_real(char* out, double value) noexcept {
  return std::to_chars(out, out + max_real_chars, value, std::chars_format::general, 17).ptr;
}

// Formats pieces [0, pieces) into text in parallel and writes them in order.
// format(piece, buffer) returns the end of what it wrote; capacity(piece)
// bounds it. A group of pieces is formatted at once, so memory stays at a
// group's worth of text, not the whole file's.
template <class Capacity, class Format>
void write_pieces(OutputFile& out, size_type pieces, Capacity&& capacity, Format&& format) {
  constexpr size_type group = 64;
  std::vector<std::unique_ptr<char[]>> buffers(group);
  std::vector<std::size_t> sizes(group, 0);
  std::vector<std::size_t> lengths(group, 0);
  for (size_type first = 0; first < pieces; first += group) {
    const size_type count = std::min(group, pieces - first);
    // Allocated here, outside the threads, where a failure can throw.
    for (size_type g = 0; g < count; ++g) {
      const std::size_t need = capacity(first + g);
      if (sizes[static_cast<std::size_t>(g)] < need) {
        buffers[static_cast<std::size_t>(g)] = std::make_unique_for_overwrite<char[]>(need);
        sizes[static_cast<std::size_t>(g)] = need;
      }
    }
    parallel_blocks(count, 1, [&](size_type b, size_type e) {
      for (size_type g = b; g < e; ++g) {
        char* begin = buffers[static_cast<std::size_t>(g)].get();
        lengths[static_cast<std::size_t>(g)] =
            static_cast<std::size_t>(format(first + g, begin) - begin);
      }
    });
    for (size_type g = 0; g < count; ++g) {
      out.write(buffers[static_cast<std::size_t>(g)].get(), lengths[static_cast<std::size_t>(g)]);
    }
  }
}

constexpr size_type entries_per_piece = size_type{1} << 16;

}  // namespace

MatrixMarketHeader read_matrix_market_header(const std::string& path) {
  const std::string text = read_header_text(path);
  return parse_header(path, text.data(), text.data() + text.size()).header;
}

CsrMatrix<double> read_matrix_market(const std::string& path) {
  ParsedFile file(path);
  const MatrixMarketHeader& h = file.layout.header;
  if (h.format != MmFormat::coordinate) {
    fail(path, 1,
         "an array file holds a dense matrix: read it with read_matrix_market_dense or "
         "read_matrix_market_vector");
  }
  const Triplets triplets = parse_triplets(path, file);
  file.text.release();  // the chunks now point at nothing; only counts are used below
  return assemble_csr(h, triplets, file.slots());
}

DenseBlock read_matrix_market_dense(const std::string& path) {
  const ParsedFile file(path);
  const MatrixMarketHeader& h = file.layout.header;
  DenseBlock block;
  block.rows = h.rows;
  block.cols = h.cols;
  read_dense_values(path, file, [&] {
    block.values.resize(static_cast<std::size_t>(h.rows * h.cols));
    return block.values.data();
  });
  return block;
}

Vector<double> read_matrix_market_vector(const std::string& path) {
  const ParsedFile file(path);
  const MatrixMarketHeader& h = file.layout.header;
  if (h.cols != 1) {
    fail(path, file.layout.size_line,
         "the file has " + std::to_string(h.cols) +
             " columns, a vector needs exactly one (read_matrix_market_dense reads several)");
  }
  Vector<double> x;
  read_dense_values(path, file, [&] {
    x = Vector<double>(Executor::host(), h.rows);
    return x.data();
  });
  return x;
}

void write_matrix_market(const std::string& path, const CsrMatrix<double>& A) {
  check_location(Executor::host(), A.executor(), "A", "write_matrix_market");
  const offset_type* row_ptr = A.row_ptr().data();
  const index_type* cols = A.col_idx().data();
  const double* values = A.values().data();

  // Pieces are runs of whole rows with about entries_per_piece entries.
  std::vector<size_type> piece_rows{0};
  for (size_type r = 0; r < A.rows(); ++r) {
    if (row_ptr[r + 1] - row_ptr[piece_rows.back()] >= entries_per_piece)
      piece_rows.push_back(r + 1);
  }
  if (piece_rows.back() != A.rows()) piece_rows.push_back(A.rows());

  OutputFile out(path);
  std::string head = "%%MatrixMarket matrix coordinate real general\n";
  head += std::to_string(A.rows()) + " " + std::to_string(A.cols()) + " " +
          std::to_string(A.nnz()) + "\n";
  out.write(head);
  constexpr std::size_t max_entry_chars = 2 * max_integer_chars + max_real_chars + 3;
  write_pieces(
      out, static_cast<size_type>(piece_rows.size()) - 1,
      [&](size_type piece) {
        const auto p = static_cast<std::size_t>(piece);
        return static_cast<std::size_t>(row_ptr[piece_rows[p + 1]] - row_ptr[piece_rows[p]]) *
                   max_entry_chars +
               1;
      },
      [&](size_type piece, char* text) {
        const auto p = static_cast<std::size_t>(piece);
        for (size_type r = piece_rows[p]; r < piece_rows[p + 1]; ++r) {
          for (offset_type k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
            text = put_integer(text, r + 1);
            *text++ = ' ';
            text = put_integer(text, size_type{cols[k]} + 1);
            *text++ = ' ';
            text = put_real(text, values[k]);
            *text++ = '\n';
          }
        }
        return text;
      });
  out.close();
}

void write_matrix_market(const std::string& path, const Vector<double>& x) {
  check_location(Executor::host(), x.executor(), "x", "write_matrix_market");
  const double* values = x.data();
  const size_type n = x.size();

  OutputFile out(path);
  out.write("%%MatrixMarket matrix array real general\n" + std::to_string(n) + " 1\n");
  write_pieces(
      out, (n + entries_per_piece - 1) / entries_per_piece,
      [&](size_type) { return static_cast<std::size_t>(entries_per_piece) * (max_real_chars + 1); },
      [&](size_type piece, char* text) {
        const size_type end = std::min(n, (piece + 1) * entries_per_piece);
        for (size_type i = piece * entries_per_piece; i < end; ++i) {
          text = put_real(text, values[i]);
          *text++ = '\n';
        }
        return text;
      });
  out.close();
}

}  // namespace strata::io
