// The token stream of the Siconos readers (FORMATS.md §0; declared in siconos_reader.hpp).

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <istream>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "detail.hpp"
#include "perp/core/error.hpp"
#include "siconos_reader.hpp"

namespace perp::detail {
namespace {

/// fscanf accepts a leading '+' and std::from_chars does not, so step over one; a sign
/// after it ("+-1") stays and is rejected.
const char* skip_plus_sign(const std::string& token) {
  const char* first = token.data();
  if (token.size() > 1 && token[0] == '+' && token[1] != '-') ++first;
  return first;
}

/// The whole token as a decimal integer; anything left over is std::errc::invalid_argument.
std::errc parse_integer(const std::string& token, long long& value) {
  const char* first = skip_plus_sign(token);
  const char* last = token.data() + token.size();
  const auto [stop, error] = std::from_chars(first, last, value);
  if (error == std::errc() && stop != last) return std::errc::invalid_argument;
  return error;
}

}  // namespace

TokenReader::TokenReader(std::istream& in, const std::string& source) : in_(in), source_(source) {
  // The bytes the input holds, when it can tell (a file or string; not a pipe): every token
  // takes at least 2 of them (one character and a separator, the last one excepted), which
  // bounds what a header can claim by what the file really holds.
  const std::istream::pos_type start = in_.tellg();
  if (start != std::istream::pos_type(-1) && in_.seekg(0, std::ios::end)) {
    const std::istream::pos_type end = in_.tellg();
    in_.seekg(start);
    if (end != std::istream::pos_type(-1) && end >= start) {
      bytes_ = static_cast<long long>(end - start);
      max_tokens_ = (bytes_ + 1) / 2;
    }
  }
  in_.clear();
  // A UTF-8 byte-order mark before the first token is skipped, as the JSON reader skips it.
  if (in_.peek() == 0xEF) {
    char mark[3] = {};
    in_.read(mark, 3);
    const bool bom =
        in_.gcount() == 3 && static_cast<unsigned char>(mark[1]) == 0xBB && static_cast<unsigned char>(mark[2]) == 0xBF;
    if (!bom) {
      in_.clear();
      in_.seekg(start);
    }
  }
}

void TokenReader::require_tokens(long long count, const std::string& what) const {
  if (count <= static_cast<long long>(kMaxReserve)) return;
  if (max_tokens_ >= 0 && count > max_tokens_ - position_) {
    fail(what + " need " + std::to_string(count) + " more numbers, but the input holds only " + std::to_string(bytes_) +
         " bytes (each number takes at least 2)");
  }
}

std::optional<std::string> TokenReader::next() {
  ++position_;
  std::string token;
  if (in_ >> token) {
    current_ = token;
    return token;
  }
  if (in_.bad()) fail_here("read error", std::nullopt);
  current_.reset();
  return std::nullopt;
}

void TokenReader::fail(const std::string& problem) const { fail_here(problem, current_); }

Eigen::Index TokenReader::read_count(const std::string& what) {
  const auto token = next();
  if (!token) fail("expected a nonnegative integer for " + what);
  long long value = 0;
  const std::errc error = parse_integer(*token, value);
  if (error != std::errc() && error != std::errc::result_out_of_range) {
    fail("expected a nonnegative integer for " + what);
  }
  if (error == std::errc() && value < 0) {
    fail("expected a nonnegative integer for " + what + ", got " + std::to_string(value));
  }
  if (error == std::errc::result_out_of_range || value > kMaxCount) {
    fail(what + " = " + *token + " is too large (at most " + std::to_string(kMaxCount) + ")");
  }
  return static_cast<Eigen::Index>(value);
}

long long TokenReader::read_integer(const std::string& what) {
  const auto token = next();
  if (!token) fail("expected an integer for " + what);
  long long value = 0;
  const std::errc error = parse_integer(*token, value);
  if (error == std::errc::result_out_of_range) fail(what + " = " + *token + " is out of range");
  if (error != std::errc()) fail("expected an integer for " + what);
  return value;
}

double TokenReader::read_value(const std::string& what) {
  const auto token = next();
  if (!token) fail("expected a number for " + what);
  // std::from_chars rather than strtod: it ignores the C locale, whose decimal separator
  // could otherwise turn "1.5" into 1.
  const char* first = skip_plus_sign(*token);
  const char* last = token->data() + token->size();
  double value = 0;
  const auto [stop, error] = std::from_chars(first, last, value);
  if (error == std::errc::result_out_of_range) {
    fail(what + " is out of the range of a double (overflow or underflow)");
  }
  if (error != std::errc() || stop != last) fail("expected a number for " + what);
  // from_chars, like strtod, accepts "nan" and "inf"; an LCP with them has no meaning.
  if (std::isnan(value)) fail(what + " is NaN; every entry must be finite");
  if (std::isinf(value)) fail(what + " is infinite; every entry must be finite");
  return value;
}

std::vector<Eigen::Index> TokenReader::read_cumulative_sizes(Eigen::Index block_count, Eigen::Index total,
                                                             const std::string& name, const std::string& total_name) {
  std::vector<Eigen::Index> cumulative;
  cumulative.reserve(std::min(static_cast<std::size_t>(block_count), kMaxReserve));
  Eigen::Index previous = 0;
  for (Eigen::Index b = 0; b < block_count; ++b) {
    const std::string what = name + "[" + std::to_string(b) + "]";
    const Eigen::Index value = read_count(what);
    if (value <= previous) {
      fail(what + " = " + std::to_string(value) + " must exceed the previous cumulative size " +
           std::to_string(previous) + " (sizes are cumulative and blocks nonempty)");
    }
    if (value > total || (b + 1 == block_count && value != total)) {
      fail(what + " = " + std::to_string(value) + ": the cumulative sizes must end at the " + total_name + " " +
           std::to_string(total));
    }
    cumulative.push_back(value);
    previous = value;
  }
  return cumulative;
}

void TokenReader::fail_here(const std::string& problem, const std::optional<std::string>& token) const {
  std::string shown = "end of input";
  if (token) {
    // A binary or garbled file can hold one enormous "token"; its first characters suffice.
    constexpr std::size_t kShownLength = 40;
    shown = "'" + (token->size() > kShownLength ? token->substr(0, kShownLength) + "..." : *token) + "'";
  }
  throw InvalidProblem(source_ + ": token " + std::to_string(position_) + " (" + shown + "): " + problem);
}

}  // namespace perp::detail
