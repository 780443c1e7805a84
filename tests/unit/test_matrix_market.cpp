// MatrixMarket reading and writing: every field and symmetry on hand-written
// files, each malformed case (the error must name the file and the line),
// bit-exact round trips, and every file of the shared data folder.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#if defined(__unix__)
#include <sys/stat.h>
#endif

#include "strata/io/matrix_market.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using io::MmField;
using io::MmFormat;
using io::MmSymmetry;

// A scratch folder per test, removed afterwards.
class MatrixMarket : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("strata_mm_" + std::string(info->name()) + "_" +
                                        std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  /// Writes `content` verbatim to a file in the scratch folder; returns its path.
  std::string write_file(const std::string& name, const std::string& content) const {
    const std::string p = path(name);
    std::ofstream out(p, std::ios::binary);
    out << content;
    return p;
  }

 private:
  fs::path dir_;
};

// Checks that `read` throws io_error whose message names `file_name` with
// the given line (":LINE:") and contains `fragment`.
void expect_io_error(const std::function<void()>& read, const std::string& file_name, int line,
                     const std::string& fragment) {
  SCOPED_TRACE(file_name + ":" + std::to_string(line));
  try {
    read();
    ADD_FAILURE() << "no io_error for " << file_name;
  } catch (const io_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(file_name + ":" + std::to_string(line) + ":"), std::string::npos) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
  }
}

// A file written with the given body, read as a CSR matrix, must fail on `line`.
struct BadCase {
  const char* name;
  const char* content;
  int line;
  const char* fragment;
};

std::vector<double> values_of(const CsrMatrix<double>& A) { return A.values().to_vector(); }
std::vector<offset_type> row_ptr_of(const CsrMatrix<double>& A) { return A.row_ptr().to_vector(); }
std::vector<index_type> cols_of(const CsrMatrix<double>& A) { return A.col_idx().to_vector(); }

// Bit patterns, so that -0.0 differs from 0.0 and NaN equals itself.
std::vector<std::uint64_t> bits_of(const std::vector<double>& v) {
  std::vector<std::uint64_t> bits(v.size());
  if (!v.empty()) std::memcpy(bits.data(), v.data(), v.size() * sizeof(double));
  return bits;
}

// Columns strictly increasing within every row (sorted, no duplicates).
bool rows_sorted(const CsrMatrix<double>& A) {
  const auto ptr = row_ptr_of(A);
  const auto cols = cols_of(A);
  for (size_type r = 0; r < A.rows(); ++r) {
    for (auto k = ptr[r] + 1; k < ptr[r + 1]; ++k) {
      if (cols[k - 1] >= cols[k]) return false;
    }
  }
  return true;
}

// A == A^T exactly (the columns must be sorted).
bool exactly_symmetric(const CsrMatrix<double>& A) {
  if (A.rows() != A.cols()) return false;
  const auto ptr = row_ptr_of(A);
  const auto cols = cols_of(A);
  const auto vals = values_of(A);
  for (size_type r = 0; r < A.rows(); ++r) {
    for (auto k = ptr[r]; k < ptr[r + 1]; ++k) {
      const auto c = cols[k];
      const auto first = cols.begin() + ptr[c];
      const auto last = cols.begin() + ptr[c + 1];
      const auto it = std::lower_bound(first, last, static_cast<index_type>(r));
      if (it == last || *it != r || vals[it - cols.begin()] != vals[k]) return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------- reading

TEST_F(MatrixMarket, ReadsRealGeneralWithCommentsAndBlankLines) {
  const auto p = write_file("general.mtx",
                            "%%MatrixMarket matrix coordinate real general\n"
                            "% a comment\n"
                            "\n"
                            "%another\n"
                            "3 4 5\n"
                            "1 4 1.5\n"
                            "\n"
                            "% between entries\n"
                            "1 1 -2e-3\n"
                            "3 2 .25\n"
                            "   2 3 7\n"
                            "3 1 -1E+2  \n");
  const auto A = io::read_matrix_market(p);
  EXPECT_EQ(A.rows(), 3);
  EXPECT_EQ(A.cols(), 4);
  EXPECT_EQ(A.nnz(), 5);
  EXPECT_TRUE(A.executor().is_host());
  EXPECT_EQ(row_ptr_of(A), (std::vector<offset_type>{0, 2, 3, 5}));
  EXPECT_EQ(cols_of(A), (std::vector<index_type>{0, 3, 2, 0, 1}));
  EXPECT_EQ(values_of(A), (std::vector<double>{-2e-3, 1.5, 7, -100, 0.25}));
  A.validate();

  const auto h = io::read_matrix_market_header(p);
  EXPECT_EQ(h.format, MmFormat::coordinate);
  EXPECT_EQ(h.field, MmField::real);
  EXPECT_EQ(h.symmetry, MmSymmetry::general);
  EXPECT_EQ(h.rows, 3);
  EXPECT_EQ(h.cols, 4);
  EXPECT_EQ(h.entries, 5);
}

TEST_F(MatrixMarket, ReadsIntegerAndUnsignedIntegerFields) {
  const auto A =
      io::read_matrix_market(write_file("int.mtx",
                                        "%%MatrixMarket matrix coordinate integer general\n"
                                        "2 2 3\n"
                                        "1 1 -3\n"
                                        "2 2 +12\n"
                                        "2 1 9007199254740993\n"));
  EXPECT_EQ(values_of(A), (std::vector<double>{-3, 9007199254740992.0, 12}));
  EXPECT_EQ(io::read_matrix_market_header(path("int.mtx")).field, MmField::integer);

  const auto B = io::read_matrix_market(
      write_file("uint.mtx",
                 "%%MatrixMarket matrix coordinate unsigned-integer general\n"
                 "2 2 2\n"
                 "1 2 4\n"
                 "2 1 0\n"));
  EXPECT_EQ(cols_of(B), (std::vector<index_type>{1, 0}));
  EXPECT_EQ(values_of(B), (std::vector<double>{4, 0}));
  EXPECT_EQ(io::read_matrix_market_header(path("uint.mtx")).field, MmField::unsigned_integer);
}

TEST_F(MatrixMarket, ReadsPatternAsOnes) {
  const auto A =
      io::read_matrix_market(write_file("pattern.mtx",
                                        "%%MatrixMarket matrix coordinate pattern general\n"
                                        "2 3 3\n"
                                        "2 3\n"
                                        "1 2\n"
                                        "2 1\n"));
  EXPECT_EQ(row_ptr_of(A), (std::vector<offset_type>{0, 1, 3}));
  EXPECT_EQ(cols_of(A), (std::vector<index_type>{1, 0, 2}));
  EXPECT_EQ(values_of(A), (std::vector<double>{1, 1, 1}));

  // Pattern and symmetric together: mirrored ones.
  const auto S =
      io::read_matrix_market(write_file("pattern_sym.mtx",
                                        "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                        "2 2 2\n"
                                        "1 1\n"
                                        "2 1\n"));
  EXPECT_EQ(row_ptr_of(S), (std::vector<offset_type>{0, 2, 3}));
  EXPECT_EQ(values_of(S), (std::vector<double>{1, 1, 1}));
}

TEST_F(MatrixMarket, ExpandsSymmetricWithoutDoublingTheDiagonal) {
  // [ 4 -1  0 ]
  // [-1  4 -2 ]
  // [ 0 -2  5 ]
  const auto A =
      io::read_matrix_market(write_file("sym.mtx",
                                        "%%MatrixMarket matrix coordinate real symmetric\n"
                                        "3 3 5\n"
                                        "1 1 4\n"
                                        "2 1 -1\n"
                                        "2 2 4\n"
                                        "3 2 -2\n"
                                        "3 3 5\n"));
  EXPECT_EQ(A.nnz(), 7);
  EXPECT_EQ(row_ptr_of(A), (std::vector<offset_type>{0, 2, 5, 7}));
  EXPECT_EQ(cols_of(A), (std::vector<index_type>{0, 1, 0, 1, 2, 1, 2}));
  EXPECT_EQ(values_of(A), (std::vector<double>{4, -1, -1, 4, -2, -2, 5}));
  EXPECT_EQ(io::read_matrix_market_header(path("sym.mtx")).symmetry, MmSymmetry::symmetric);
  EXPECT_TRUE(exactly_symmetric(A));
}

TEST_F(MatrixMarket, ExpandsSkewSymmetricWithNegatedMirror) {
  const auto A =
      io::read_matrix_market(write_file("skew.mtx",
                                        "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                                        "3 3 2\n"
                                        "2 1 3\n"
                                        "3 1 -0.5\n"));
  EXPECT_EQ(row_ptr_of(A), (std::vector<offset_type>{0, 2, 3, 4}));
  EXPECT_EQ(cols_of(A), (std::vector<index_type>{1, 2, 0, 0}));
  EXPECT_EQ(values_of(A), (std::vector<double>{-3, 0.5, 3, -0.5}));
  EXPECT_EQ(io::read_matrix_market_header(path("skew.mtx")).symmetry, MmSymmetry::skew_symmetric);
}

TEST_F(MatrixMarket, SumsDuplicateEntries) {
  const auto A = io::read_matrix_market(write_file("dups.mtx",
                                                   "%%MatrixMarket matrix coordinate real general\n"
                                                   "2 2 5\n"
                                                   "1 1 1\n"
                                                   "2 2 3\n"
                                                   "1 1 2\n"
                                                   "1 2 -1\n"
                                                   "1 1 0.5\n"));
  EXPECT_EQ(row_ptr_of(A), (std::vector<offset_type>{0, 2, 3}));
  EXPECT_EQ(cols_of(A), (std::vector<index_type>{0, 1, 1}));
  EXPECT_EQ(values_of(A), (std::vector<double>{3.5, -1, 3}));
  A.validate();

  // In a symmetric file, (2,1) repeated sums, and the sum mirrors; (1,2)
  // would be refused (RejectsBadEntries), not doubled.
  const auto S =
      io::read_matrix_market(write_file("dups_sym.mtx",
                                        "%%MatrixMarket matrix coordinate real symmetric\n"
                                        "2 2 3\n"
                                        "2 1 1\n"
                                        "2 1 2\n"
                                        "2 2 1\n"));
  EXPECT_EQ(cols_of(S), (std::vector<index_type>{1, 0, 1}));
  EXPECT_EQ(values_of(S), (std::vector<double>{3, 3, 1}));
}

TEST_F(MatrixMarket, SortsLongRowsAndSumsTheirDuplicates) {
  // One row with 200 entries in a scrambled order, every column twice:
  // long enough for the sort that is not an insertion sort.
  const int n = 100;
  std::vector<int> order;
  for (int c = 0; c < n; ++c) order.insert(order.end(), {c, c});
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  std::string text = "%%MatrixMarket matrix coordinate real general\n2 " + std::to_string(n) + " " +
                     std::to_string(order.size()) + "\n";
  for (const int c : order)
    text += "2 " + std::to_string(c + 1) + " " + std::to_string(c) + ".25\n";
  const auto A = io::read_matrix_market(write_file("long.mtx", text));
  EXPECT_EQ(row_ptr_of(A), (std::vector<offset_type>{0, 0, n}));
  const auto cols = cols_of(A);
  const auto vals = values_of(A);
  for (int c = 0; c < n; ++c) {
    EXPECT_EQ(cols[c], c);
    EXPECT_EQ(vals[c], 2 * (c + 0.25));
  }
}

TEST_F(MatrixMarket, AcceptsCrlfTabsSignsAndCase) {
  const auto A =
      io::read_matrix_market(write_file("crlf.mtx",
                                        "%%matrixmarket MATRIX Coordinate Real General\r\n"
                                        "%comment\r\n"
                                        "2\t2\t3\r\n"
                                        "1\t1\t+1.5\r\n"
                                        "2 1 1e-400\r\n"  // underflows to zero, which is fine
                                        "\t2 2 -0\r\n"));
  EXPECT_EQ(cols_of(A), (std::vector<index_type>{0, 0, 1}));
  const auto v = values_of(A);
  EXPECT_EQ(v[0], 1.5);
  EXPECT_EQ(v[1], 0.0);
  EXPECT_TRUE(std::signbit(v[2]));
}

TEST_F(MatrixMarket, ReadsEmptyMatrices) {
  const auto A = io::read_matrix_market(
      write_file("zero.mtx", "%%MatrixMarket matrix coordinate real general\n0 0 0\n"));
  EXPECT_EQ(A.rows(), 0);
  EXPECT_EQ(A.cols(), 0);
  EXPECT_EQ(row_ptr_of(A), (std::vector<offset_type>{0}));

  // No final newline and no entries.
  const auto B = io::read_matrix_market(
      write_file("empty.mtx", "%%MatrixMarket matrix coordinate real general\n3 2 0"));
  EXPECT_EQ(B.rows(), 3);
  EXPECT_EQ(B.cols(), 2);
  EXPECT_EQ(B.nnz(), 0);
  EXPECT_EQ(row_ptr_of(B), (std::vector<offset_type>{0, 0, 0, 0}));
}

TEST_F(MatrixMarket, HeaderReadsOnlyTheBannerAndSizeLine) {
  // The entries after the size line are garbage: the header does not look.
  const auto p = write_file("header.mtx",
                            "%%MatrixMarket matrix array real symmetric\n"
                            "%\n"
                            "\n"
                            "4 4\n"
                            "not a number\n");
  const auto h = io::read_matrix_market_header(p);
  EXPECT_EQ(h.format, MmFormat::array);
  EXPECT_EQ(h.symmetry, MmSymmetry::symmetric);
  EXPECT_EQ(h.rows, 4);
  EXPECT_EQ(h.cols, 4);
  EXPECT_EQ(h.entries, 16);
}

TEST_F(MatrixMarket, ReadsArrayFilesColumnMajor) {
  const auto p = write_file("block.mtx",
                            "%%MatrixMarket matrix array real general\n"
                            "% two columns\n"
                            "3 2\n"
                            "1\n2\n3\n"
                            "% second column\n"
                            "4.5\n5\n6\n");
  const auto B = io::read_matrix_market_dense(p);
  EXPECT_EQ(B.rows, 3);
  EXPECT_EQ(B.cols, 2);
  EXPECT_EQ(B.values, (std::vector<double>{1, 2, 3, 4.5, 5, 6}));
  expect_io_error([&] { io::read_matrix_market_vector(p); }, "block.mtx", 3, "one");
  expect_io_error([&] { io::read_matrix_market(p); }, "block.mtx", 1, "read_matrix_market_dense");
}

TEST_F(MatrixMarket, ExpandsSymmetricAndSkewArrays) {
  // Lower triangle column by column: (1,1) (2,1) (3,1) (2,2) (3,2) (3,3).
  const auto S = io::read_matrix_market_dense(write_file(
      "sym_array.mtx", "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n"));
  EXPECT_EQ(S.values, (std::vector<double>{1, 2, 3, 2, 4, 5, 3, 5, 6}));
  const auto K = io::read_matrix_market_dense(write_file(
      "skew_array.mtx", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n"));
  EXPECT_EQ(K.values, (std::vector<double>{0, 1, 2, -1, 0, 3, -2, -3, 0}));
}

TEST_F(MatrixMarket, ReadsVectorsFromArrayAndCoordinateFiles) {
  const auto x = io::read_matrix_market_vector(write_file(
      "x.mtx", "%%MatrixMarket matrix array unsigned-integer general\n%\n3 1\n1\n0\n7\n"));
  EXPECT_TRUE(x.executor().is_host());
  EXPECT_EQ(x.to_vector(), (std::vector<double>{1, 0, 7}));

  // Missing entries are zero and repeated ones add up.
  const auto p = write_file("xc.mtx",
                            "%%MatrixMarket matrix coordinate real general\n"
                            "4 1 3\n"
                            "3 1 2.5\n"
                            "1 1 1\n"
                            "3 1 0.5\n");
  EXPECT_EQ(io::read_matrix_market_vector(p).to_vector(), (std::vector<double>{1, 0, 3, 0}));
  const auto sparse = write_file("sparse_x.mtx",
                                 "%%MatrixMarket matrix coordinate pattern general\n"
                                 "6 1 1\n"
                                 "5 1\n");
  EXPECT_EQ(io::read_matrix_market_vector(sparse).to_vector(),
            (std::vector<double>{0, 0, 0, 0, 1, 0}));
  const auto B = io::read_matrix_market_dense(p);
  EXPECT_EQ(B.rows, 4);
  EXPECT_EQ(B.cols, 1);
  EXPECT_EQ(B.values, (std::vector<double>{1, 0, 3, 0}));

  // A sparse matrix with several columns is not a dense block.
  const auto wide =
      write_file("wide.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n");
  expect_io_error([&] { io::read_matrix_market_dense(wide); }, "wide.mtx", 2, "read_matrix_market");
  expect_io_error([&] { io::read_matrix_market_vector(wide); }, "wide.mtx", 2, "one");
}

// ---------------------------------------------------------------- errors

TEST_F(MatrixMarket, MissingFileNamesTheFileAndTheReason) {
  const auto p = path("does_not_exist.mtx");
  for (const auto& read : std::vector<std::function<void()>>{
           [&] { io::read_matrix_market(p); }, [&] { io::read_matrix_market_header(p); },
           [&] { io::read_matrix_market_dense(p); }, [&] { io::read_matrix_market_vector(p); }}) {
    try {
      read();
      ADD_FAILURE() << "no io_error";
    } catch (const io_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("does_not_exist.mtx"), std::string::npos) << what;
      EXPECT_NE(what.find("No such file or directory"), std::string::npos) << what;
    }
  }
}

TEST_F(MatrixMarket, RejectsBadBannersAndHeaders) {
  const std::vector<BadCase> cases = {
      {"empty.mtx", "", 1, "empty file"},
      {"no_banner.mtx", "3 3 1\n1 1 1\n", 1, "missing banner"},
      {"short_banner.mtx", "%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "has 4 words"},
      {"long_banner.mtx", "%%MatrixMarket matrix coordinate real general x\n1 1 0\n", 1,
       "has 6 words"},
      {"object.mtx", "%%MatrixMarket vector coordinate real general\n1 1 0\n", 1, "'vector'"},
      {"format.mtx", "%%MatrixMarket matrix sparse real general\n1 1 0\n", 1,
       "unknown format 'sparse'"},
      {"field.mtx", "%%MatrixMarket matrix coordinate float general\n1 1 0\n", 1,
       "unknown field 'float'"},
      {"complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 0\n", 1,
       "unsupported field 'complex'"},
      {"symmetry.mtx", "%%MatrixMarket matrix coordinate real lower\n1 1 0\n", 1,
       "unknown symmetry 'lower'"},
      {"hermitian.mtx", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1,
       "unsupported symmetry 'hermitian'"},
      {"array_pattern.mtx", "%%MatrixMarket matrix array pattern general\n1 1\n", 1, "pattern"},
      {"no_size.mtx", "%%MatrixMarket matrix coordinate real general\n% only comments\n\n", 3,
       "before the size line"},
      {"no_size_eof.mtx", "%%MatrixMarket matrix coordinate real general", 1,
       "before the size line"},
      {"size_words.mtx", "%%MatrixMarket matrix coordinate real general\n%\n3 3\n", 3,
       "bad size line"},
      {"size_array_words.mtx", "%%MatrixMarket matrix array real general\n3 1 3\n", 2,
       "bad size line"},
      {"size_number.mtx", "%%MatrixMarket matrix coordinate real general\n\n3 x 1\n", 3, "'x'"},
      {"size_negative.mtx", "%%MatrixMarket matrix coordinate real general\n3 -3 1\n", 2, "'-3'"},
      {"size_float.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1.0\n", 2, "'1.0'"},
      {"not_square.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", 2,
       "square"},
      {"too_wide.mtx", "%%MatrixMarket matrix coordinate real general\n1 3000000000 0\n", 2,
       "32-bit"},
  };
  for (const auto& c : cases) {
    const auto p = write_file(c.name, c.content);
    expect_io_error([&] { io::read_matrix_market(p); }, c.name, c.line, c.fragment);
    expect_io_error([&] { io::read_matrix_market_header(p); }, c.name, c.line, c.fragment);
  }
}

TEST_F(MatrixMarket, RejectsBadEntries) {
  const std::vector<BadCase> cases = {
      // 10 x 10 with a comment, so that the size line is line 3.
      {"col_range.mtx",
       "%%MatrixMarket matrix coordinate real general\n%\n10 10 3\n1 1 1\n\n2 2 2\n"
       "3 12 3\n",
       7, "column index 12 out of range [1, 10]"},
      {"row_range.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n", 3,
       "row index 3 out of range [1, 2]"},
      {"row_zero.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1\n", 3,
       "row index 0 out of range"},
      {"col_zero.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 0 1\n", 3,
       "column index 0 out of range"},
      {"bad_row.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\nx 1 1\n", 3,
       "bad row index 'x'"},
      {"bad_col.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1.0 1\n", 3,
       "bad column index '1.0'"},
      {"bad_value.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1.5x\n",
       4, "bad value '1.5x'"},
      {"fortran_value.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.0D+00\n",
       3, "bad value '1.0D+00'"},
      {"int_value.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", 3,
       "integer"},
      {"uint_value.mtx",
       "%%MatrixMarket matrix coordinate unsigned-integer general\n2 2 1\n1 1 -1\n", 3,
       "unsigned-integer"},
      {"nan_value.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 nan\n", 3,
       "not finite"},
      {"huge_value.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1e400\n", 3,
       "not finite"},
      {"trailing.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 2 junk\n",
       4, "trailing text 'junk'"},
      {"pattern_value.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n", 3,
       "trailing text '1'"},
      {"no_value.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2   \n", 4,
       "missing value"},
      {"no_col.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1     \n", 3,
       "missing column index"},
      {"skew_diag.mtx",
       "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 2\n2 1 1\n2 2 1\n", 4,
       "diagonal entry (2, 2)"},
      // Truncated: the error is on the file's last line and says how many.
      {"truncated.mtx",
       "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n2 2 2\n% trailing comment\n",
       5, "after 2 of the 4 entries announced on line 2"},
      // Fewer bytes than the announced entries need: refused at the size
      // line, before the body is read.
      {"truncated_noeol.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1", 2,
       "announces 4 entries, but the 5 bytes after it can hold at most 1"},
      {"no_entries.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n", 2,
       "announces 1 entries, but the 0 bytes after it can hold at most 0"},
      {"extra.mtx",
       "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 2 2\n\n% c\n3 3 3\n", 7,
       "more entries than the 2 announced on line 2"},
      // A symmetric file stores one triangle: an entry above the diagonal
      // would be mirrored onto one listed below it (doubled) or invent one.
      {"symmetric_upper.mtx",
       "%%MatrixMarket matrix coordinate real symmetric\n%\n3 3 4\n1 1 2\n2 1 -1\n1 2 -1\n"
       "2 2 2\n",
       6, "entry (1, 2) lies above the diagonal, but a symmetric file stores only the lower"},
      {"skew_upper.mtx",
       "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 2 1\n", 3,
       "entry (1, 2) lies above the diagonal, but a skew-symmetric file"},
      {"pattern_symmetric_upper.mtx",
       "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n1 1\n2 3\n", 4,
       "entry (2, 3) lies above the diagonal"},
      // Sizes a short file cannot justify: refused at the size line before
      // anything they size is allocated (the row offsets alone of the
      // first would take 16 GB).
      {"rows_huge.mtx",
       "%%MatrixMarket matrix coordinate real general\n2147483647 1 1\n1 1 1\n", 2,
       "announces 2147483647 rows but only 1 entries, which fill at most 1 of them"},
      {"cols_huge.mtx",
       "%%MatrixMarket matrix coordinate real general\n1 2147483647 1\n1 1 1\n", 2,
       "announces 2147483647 columns but only 1 entries"},
      {"rows_huge_symmetric.mtx",
       "%%MatrixMarket matrix coordinate real symmetric\n2000000000 2000000000 1\n1 1 1\n", 2,
       "at most 1048576 empty rows more (1048578 in all)"},
      {"entries_huge.mtx",
       "%%MatrixMarket matrix coordinate real general\n10 10 4000000000\n1 1 1\n", 2,
       "announces 4000000000 entries, but the 6 bytes after it can hold at most 1"},
      // The first error in the file wins, even when a later line is also bad.
      {"two_errors.mtx",
       "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n1 9 1\nx 1 1\n", 4,
       "column index 9"},
  };
  for (const auto& c : cases) {
    const auto p = write_file(c.name, c.content);
    expect_io_error([&] { io::read_matrix_market(p); }, c.name, c.line, c.fragment);
  }
}

// Empty rows and columns are legal (a singular matrix still has a size):
// up to 2^20 more than the entries fill are read.
TEST_F(MatrixMarket, ReadsEmptyRowsUpToTheAllowance) {
  const auto p = write_file("sparse.mtx",
                            "%%MatrixMarket matrix coordinate real symmetric\n1048578 1048578 1\n"
                            "2 1 5\n");
  const auto A = io::read_matrix_market(p);
  EXPECT_EQ(A.rows(), 1048578);
  EXPECT_EQ(A.nnz(), 2);
  EXPECT_EQ(row_ptr_of(A)[1], 1);
  EXPECT_EQ(cols_of(A)[0], 1);
}

// A NUL byte before the banner (found by fuzzing the header reader, which
// once took back() of an empty line): the banner error, from both readers.
TEST_F(MatrixMarket, NulByteInTheBannerIsAnError) {
  const auto p = write_file("nul.mtx", std::string("\0%%MatrixMarket matrix array real general\n"
                                                   "1 1\n1\n",
                                                   48));
  expect_io_error([&] { io::read_matrix_market_header(p); }, "nul.mtx", 1, "missing banner");
  expect_io_error([&] { io::read_matrix_market_vector(p); }, "nul.mtx", 1, "missing banner");
}

TEST_F(MatrixMarket, RejectsBadArrayEntries) {
  const std::vector<BadCase> cases = {
      {"array_short.mtx", "%%MatrixMarket matrix array real general\n%\n3 1\n1\n2\n% c\n", 6,
       "after 2 of the 3"},
      {"array_too_few_bytes.mtx", "%%MatrixMarket matrix array real general\n%\n3 1\n1\n2\n", 3,
       "announces 3 values, but the 4 bytes after it can hold at most 2"},
      {"array_long.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\n2\n3\n", 5,
       "more entries than the 2"},
      {"array_value.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\nabc\n", 4,
       "bad value 'abc'"},
      {"array_two.mtx", "%%MatrixMarket matrix array real general\n2 1\n1 2\n3\n", 3,
       "trailing text '2'"},
      {"array_uint.mtx", "%%MatrixMarket matrix array unsigned-integer general\n2 1\n1\n-2\n", 4,
       "unsigned-integer"},
      // A size line announcing a huge array in a short file: an error, not
      // an attempt to allocate.
      {"array_huge.mtx", "%%MatrixMarket matrix array real general\n1000000000000 1\n1\n", 2,
       "announces 1000000000000 values, but the 2 bytes after it can hold at most 1"},
      {"array_nan.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\nnan\n", 4,
       "value 'nan' is not finite"},
      {"array_inf.mtx", "%%MatrixMarket matrix array real general\n2 1\n-inf\n1\n", 3,
       "value '-inf' is not finite"},
      {"array_overflow.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\n1e999\n", 4,
       "value '1e999' is not finite"},
  };
  for (const auto& c : cases) {
    const auto p = write_file(c.name, c.content);
    expect_io_error([&] { io::read_matrix_market_dense(p); }, c.name, c.line, c.fragment);
    expect_io_error([&] { io::read_matrix_market_vector(p); }, c.name, c.line, c.fragment);
  }
}

// Files large enough to be parsed in several pieces in parallel: the
// content and the line numbers of errors must not depend on the split.
TEST_F(MatrixMarket, LargeFilesReadInPiecesKeepExactLineNumbers) {
  const int n = 1000000;  // about 20 MB: several parse chunks of a few MB
  std::ostringstream text;
  text << "%%MatrixMarket matrix coordinate real general\n% big\n" << n << " 3 " << n << "\n";
  for (int i = 0; i < n; ++i) {
    text << i + 1 << ' ' << (i % 3) + 1 << ' ' << i << ".5\n";
    if (i % 1000 == 0) text << "% comment\n";
  }
  const std::string good = text.str();
  const auto A = io::read_matrix_market(write_file("big.mtx", good));
  ASSERT_EQ(A.nnz(), n);
  const auto cols = cols_of(A);
  const auto vals = values_of(A);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(cols[i], i % 3);
    ASSERT_EQ(vals[i], i + 0.5);
  }

  // Breaks the entry of row `row` (1-based) and returns its line number.
  const auto break_row = [&](std::string& s, int row, const std::string& bad) {
    const std::string needle = "\n" + std::to_string(row) + " ";
    const auto at = s.find(needle) + 1;
    s.replace(at, s.find('\n', at) - at, bad);
    return static_cast<int>(
               std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(at), '\n')) +
           1;
  };
  std::string late = good;
  const int late_line = break_row(late, 950000, "1 4 1");
  expect_io_error([&] { io::read_matrix_market(write_file("late.mtx", late)); }, "late.mtx",
                  late_line, "column index 4 out of range [1, 3]");

  std::string both = late;
  const int early_line = break_row(both, 300000, "1 1 x");
  ASSERT_LT(early_line, late_line);
  expect_io_error([&] { io::read_matrix_market(write_file("both.mtx", both)); }, "both.mtx",
                  early_line, "bad value 'x'");

  // One entry too many at the very end.
  const auto extra_line = static_cast<int>(std::count(good.begin(), good.end(), '\n')) + 1;
  expect_io_error([&] { io::read_matrix_market(write_file("extra.mtx", good + "1 1 1\n")); },
                  "extra.mtx", extra_line, "more entries than the 1000000");
}

#if defined(__unix__)
// A pipe cannot be mapped; it is read with fread into a buffer that grows.
TEST_F(MatrixMarket, ReadsFromAPipe) {
  const int n = 100000;  // about 2 MB, more than the first buffer
  std::string text = "%%MatrixMarket matrix coordinate real general\n" + std::to_string(n) + " 1 " +
                     std::to_string(n) + "\n";
  for (int i = 0; i < n; ++i) text += std::to_string(i + 1) + " 1 " + std::to_string(i) + ".5\n";
  const auto fifo = path("pipe.mtx");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << text; });
  const auto x = io::read_matrix_market_vector(fifo);
  writer.join();
  ASSERT_EQ(x.size(), n);
  const auto values = x.to_vector();
  for (int i = 0; i < n; ++i) ASSERT_EQ(values[i], i + 0.5);
}
#endif

// ---------------------------------------------------------------- writing

TEST_F(MatrixMarket, RoundTripIsBitExact) {
  const double awkward[] = {0.1,
                            1.0 / 3.0,
                            -2.0 / 7.0,
                            1e300,
                            -1e-300,
                            std::numeric_limits<double>::min(),
                            std::numeric_limits<double>::denorm_min(),
                            std::numeric_limits<double>::max(),
                            -std::numeric_limits<double>::max(),
                            -0.0,
                            123456789.123456789,
                            std::nextafter(1.0, 2.0)};
  // 3 x 7 with an empty row.
  const Executor host = Executor::host();
  const CsrMatrix<double> A(
      3, 7, Array<offset_type>(host, {0, 5, 5, 12}),
      Array<index_type>(host, {0, 2, 3, 4, 6, 0, 1, 2, 3, 4, 5, 6}),
      Array<double>(host, std::vector<double>(std::begin(awkward), std::end(awkward))));
  const auto p = path("round_trip.mtx");
  io::write_matrix_market(p, A);
  const auto h = io::read_matrix_market_header(p);
  EXPECT_EQ(h.format, MmFormat::coordinate);
  EXPECT_EQ(h.field, MmField::real);
  EXPECT_EQ(h.symmetry, MmSymmetry::general);
  const auto B = io::read_matrix_market(p);
  EXPECT_EQ(B.rows(), 3);
  EXPECT_EQ(B.cols(), 7);
  EXPECT_EQ(row_ptr_of(B), row_ptr_of(A));
  EXPECT_EQ(cols_of(B), cols_of(A));
  EXPECT_EQ(bits_of(values_of(B)), bits_of(values_of(A)));

  // The text says "coordinate real general" and uses 17 significant digits.
  std::ifstream in(p);
  std::string banner, size, first;
  std::getline(in, banner);
  std::getline(in, size);
  std::getline(in, first);
  EXPECT_EQ(banner, "%%MatrixMarket matrix coordinate real general");
  EXPECT_EQ(size, "3 7 12");
  EXPECT_EQ(first, "1 1 0.10000000000000001");
}

TEST_F(MatrixMarket, RoundTripOfALargeMatrix) {
  // Enough entries for the writer to format several pieces in parallel.
  const size_type rows = 300000;
  std::vector<offset_type> ptr{0};
  std::vector<index_type> cols;
  for (size_type r = 0; r < rows; ++r) {
    for (const size_type c : {r - 1, r, r + 1}) {
      if (c >= 0 && c < rows) cols.push_back(static_cast<index_type>(c));
    }
    ptr.push_back(static_cast<offset_type>(cols.size()));
  }
  const auto vals = test::random_values(cols.size(), 11, -1e3, 1e3);
  const Executor host = Executor::host();
  const CsrMatrix<double> A(rows, rows, Array<offset_type>(host, ptr),
                            Array<index_type>(host, cols), Array<double>(host, vals));
  const auto p = path("large.mtx");
  io::write_matrix_market(p, A);
  const auto B = io::read_matrix_market(p);
  EXPECT_EQ(row_ptr_of(B), ptr);
  EXPECT_EQ(cols_of(B), cols);
  EXPECT_EQ(bits_of(values_of(B)), bits_of(vals));
}

TEST_F(MatrixMarket, VectorRoundTripIsBitExact) {
  auto values = test::random_values(200000, 5, -1.0, 1.0);
  values[0] = -0.0;
  values[1] = std::numeric_limits<double>::denorm_min();
  values[2] = std::numeric_limits<double>::max();
  const auto p = path("x.mtx");
  // Written, but refused when read: a right-hand side or near-null space
  // with Inf or NaN can only end a solve as non_finite (line 5: value 2).
  auto with_inf = values;
  with_inf[2] = std::numeric_limits<double>::infinity();
  io::write_matrix_market(p, Vector<double>(Array<double>(Executor::host(), with_inf)));
  expect_io_error([&] { io::read_matrix_market_vector(p); }, "x.mtx", 5, "value 'inf' is not finite");
  const Vector<double> x(Array<double>(Executor::host(), values));
  io::write_matrix_market(p, x);
  const auto h = io::read_matrix_market_header(p);
  EXPECT_EQ(h.format, MmFormat::array);
  EXPECT_EQ(h.rows, 200000);
  EXPECT_EQ(h.cols, 1);
  EXPECT_EQ(bits_of(io::read_matrix_market_vector(p).to_vector()), bits_of(values));
  const auto B = io::read_matrix_market_dense(p);
  EXPECT_EQ(B.cols, 1);
  EXPECT_EQ(bits_of(B.values), bits_of(values));

  // An empty vector too.
  io::write_matrix_market(path("empty.mtx"), Vector<double>(Executor::host(), 0));
  EXPECT_EQ(io::read_matrix_market_vector(path("empty.mtx")).size(), 0);
}

TEST_F(MatrixMarket, WriteErrorsNameThePath) {
  const auto p = path("no_such_dir/out.mtx");
  try {
    io::write_matrix_market(p, CsrMatrix<double>());
    ADD_FAILURE() << "no io_error";
  } catch (const io_error& e) {
    EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
  EXPECT_THROW(io::write_matrix_market(p, Vector<double>(Executor::host(), 2, 1.0)), io_error);
  if (fs::exists("/dev/full")) {
    // A full disk shows up at the latest when the file is closed.
    EXPECT_THROW(io::write_matrix_market("/dev/full", Vector<double>(Executor::host(), 100, 1.0)),
                 io_error);
  }
}

TEST(MatrixMarketDevice, WriteRefusesDeviceData) {
  STRATA_REQUIRE_DEVICE();
  const Executor host = Executor::host();
  const CsrMatrix<double> A(1, 1, Array<offset_type>(host, {0, 1}), Array<index_type>(host, {0}),
                            Array<double>(host, {2.0}));
  const auto p = (fs::temp_directory_path() / "strata_mm_device.mtx").string();
  EXPECT_THROW(io::write_matrix_market(p, A.to(Executor::cuda())), location_mismatch);
  EXPECT_THROW(io::write_matrix_market(p, Vector<double>(Executor::cuda(), 3, 1.0)),
               location_mismatch);
  EXPECT_FALSE(fs::exists(p));
}

// ---------------------------------------------------------------- shared data

TEST_F(MatrixMarket, ReadsEverySharedDataFile) {
  STRATA_REQUIRE_DATA();
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(test::data_dir())) {
    if (!entry.is_regular_file() || entry.path().extension() != ".mtx") continue;
    const std::string p = entry.path().string();
    SCOPED_TRACE(p);
    ++files;
    const auto h = io::read_matrix_market_header(p);
    if (h.format == MmFormat::coordinate) {
      const auto A = io::read_matrix_market(p);
      EXPECT_EQ(A.rows(), h.rows);
      EXPECT_EQ(A.cols(), h.cols);
      EXPECT_TRUE(rows_sorted(A));
      A.validate();
      if (h.symmetry == MmSymmetry::general) {
        EXPECT_LE(A.nnz(), h.entries);
      } else {
        EXPECT_GE(A.nnz(), h.entries);
        EXPECT_LE(A.nnz(), 2 * h.entries);
        if (h.symmetry == MmSymmetry::symmetric) {
          EXPECT_TRUE(exactly_symmetric(A));
        }
      }
      // Written and read back, the matrix is unchanged bit for bit.
      const auto copy = path("copy.mtx");
      io::write_matrix_market(copy, A);
      const auto B = io::read_matrix_market(copy);
      EXPECT_EQ(row_ptr_of(B), row_ptr_of(A));
      EXPECT_EQ(cols_of(B), cols_of(A));
      EXPECT_EQ(bits_of(values_of(B)), bits_of(values_of(A)));
    } else {
      const auto B = io::read_matrix_market_dense(p);
      EXPECT_EQ(B.rows, h.rows);
      EXPECT_EQ(B.cols, h.cols);
      EXPECT_EQ(static_cast<size_type>(B.values.size()), h.rows * h.cols);
      for (const double v : B.values) ASSERT_TRUE(std::isfinite(v));
      if (h.cols == 1) {
        EXPECT_EQ(io::read_matrix_market_vector(p).size(), h.rows);
      }
    }
  }
  EXPECT_GT(files, 0) << "no .mtx file under " << test::data_dir();
}

TEST_F(MatrixMarket, KnownFactsOfSharedData) {
  STRATA_REQUIRE_DATA();
  const fs::path data = test::data_dir();

  const auto laplace = (data / "kokkos" / "Laplace3D10.mtx").string();
  const auto A = io::read_matrix_market(laplace);
  EXPECT_EQ(A.rows(), 1000);
  EXPECT_EQ(A.cols(), 1000);
  EXPECT_EQ(A.nnz(), 6400);
  // The header says general, the matrix is symmetric all the same.
  EXPECT_TRUE(exactly_symmetric(A));
  const auto vals = values_of(A);
  EXPECT_EQ(*std::max_element(vals.begin(), vals.end()), 6.0);
  EXPECT_EQ(*std::min_element(vals.begin(), vals.end()), -1.0);

  const auto bar = io::read_matrix_market_dense((data / "pyamg" / "bar_B.mtx").string());
  EXPECT_EQ(bar.rows, 600);
  EXPECT_EQ(bar.cols, 6);
  EXPECT_EQ(bar.values[0], 1.0);  // the first rigid-body mode starts with 1
  expect_io_error([&] { io::read_matrix_market_vector((data / "pyamg" / "bar_B.mtx").string()); },
                  "bar_B.mtx", 3, "6 columns");

  const auto airfoil = io::read_matrix_market_vector((data / "pyamg" / "airfoil_B.mtx").string());
  EXPECT_EQ(airfoil.size(), 260);
  const auto ones = airfoil.to_vector();
  EXPECT_TRUE(std::all_of(ones.begin(), ones.end(), [](double v) { return v == 1.0; }));
  EXPECT_EQ(io::read_matrix_market_header((data / "pyamg" / "airfoil_B.mtx").string()).field,
            MmField::unsigned_integer);

  const auto bus = io::read_matrix_market((data / "suitesparse" / "1138_bus.mtx").string());
  EXPECT_EQ(bus.rows(), 1138);
  EXPECT_TRUE(exactly_symmetric(bus));
}

}  // namespace
}  // namespace strata
