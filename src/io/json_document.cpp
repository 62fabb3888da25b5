// JSON text to a document (limits on size, depth and numbers) and files to text, for every JSON
// reader (io/detail.hpp).
#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>

#include "detail.hpp"
#include "json_kit.hpp"
#include "perp/core/error.hpp"

namespace perp {

namespace detail {

std::string read_whole_file(const std::filesystem::path& path, std::size_t limit) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    throw InvalidProblem("cannot open '" + path.string() + "': it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const bool missing = !std::filesystem::exists(path, ignored);
    throw InvalidProblem("cannot open '" + path.string() + "'" + (missing ? ": no such file" : ""));
  }
  // A regular file is read as it is (its size bounds what it holds); anything else (a pipe,
  // /dev/zero, /dev/urandom) is read in chunks up to `limit` bytes, so that an endless stream
  // is refused instead of filling the memory.
  const bool regular = std::filesystem::is_regular_file(path, ignored);
  std::string contents;
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  std::vector<char> chunk(kChunk);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(kChunk));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (!regular && contents.size() + got > limit) {
      throw InvalidProblem("cannot read '" + path.string() + "': it is not a regular file and holds more than " +
                           std::to_string(limit) + " bytes (" + (limit == kMaxStreamBytes ? "1 GiB, " : "") +
                           "the most perp reads from a pipe or device)");
    }
    contents.append(chunk.data(), got);
  }
  if (in.bad()) throw InvalidProblem("error while reading '" + path.string() + "'");
  return contents;
}

namespace {

// Every number literal outside strings must be within the range of a double, as in the .dat
// readers (std::from_chars: 1e-400 and 1e400 are out of range, subnormals such as 1e-310 are
// not); nlohmann's parser would silently read 1e-400 as 0.
void require_numbers_in_range(const std::string& text, const std::string& source) {
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    if (c != '-' && (c < '0' || c > '9')) continue;
    std::size_t end = i;
    while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '-' ||
                                 text[end] == '+' || text[end] == '.' || text[end] == 'e' || text[end] == 'E')) {
      ++end;
    }
    double value = 0;
    const auto [stop, error] = std::from_chars(text.data() + i, text.data() + end, value);
    (void)stop;
    if (error == std::errc::result_out_of_range) {
      throw InvalidProblem(source + ": malformed JSON: the number " + text.substr(i, std::min<std::size_t>(end - i, 40)) +
                           " at byte " + std::to_string(i) +
                           " is out of the range of a double (overflow or underflow)");
    }
    i = end - 1;
  }
}

}  // namespace

json parse_json(const std::string& text, const std::string& source) {
  require_numbers_in_range(text, source);
  // The callback sees the depth of every array and object as it opens; refusing there keeps
  // the parser's (iterative) stack and every later recursive walk of the value shallow. It also
  // sees every key: a key given twice in one object is refused (the parser would keep the last).
  std::vector<std::vector<std::string>> keys;  // the keys of each open object, innermost last
  const json::parser_callback_t limit_depth = [&source, &keys](int depth, json::parse_event_t event,
                                                               json& parsed) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= kMaxJsonDepth) {
      throw InvalidProblem(source + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                           " levels of arrays and objects (the most perp reads)");
    }
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == json::parse_event_t::key && !keys.empty()) {
      const std::string key = parsed.get<std::string>();
      std::vector<std::string>& seen = keys.back();
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
        throw InvalidProblem(source + ": the key \"" + key + "\" appears twice in one object");
      }
      seen.push_back(key);
    }
    return true;
  };
  try {
    return json::parse(text, limit_depth);
  } catch (const json::parse_error& error) {
    throw InvalidProblem(source + ": malformed JSON at byte " + std::to_string(error.byte) + ": " + error.what());
  } catch (const json::exception& error) {
    // e.g. a number literal too large for a double (out_of_range.406).
    throw InvalidProblem(source + ": malformed JSON: " + error.what());
  }
}

}  // namespace detail

}  // namespace perp
