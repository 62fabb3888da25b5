#include "games.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "format.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/games.hpp"

namespace perp::cli {
namespace {

using nlohmann::json;

json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InvalidProblem("cannot open '" + path + "'");
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw InvalidProblem(path + ": not valid JSON: " + e.what());
  }
}

// A payoff matrix: an array of m >= 1 rows of n >= 1 finite numbers each.
Eigen::MatrixXd read_matrix(const json& document, const char* key, const std::string& path) {
  const std::string where = path + ": \"" + key + "\"";
  if (!document.contains(key)) throw InvalidProblem(where + " is missing (a bimatrix game needs \"A\" and \"B\")");
  const json& rows = document.at(key);
  if (!rows.is_array() || rows.empty()) throw InvalidProblem(where + " must be a non-empty array of rows");
  const std::size_t m = rows.size();
  std::size_t n = 0;
  Eigen::MatrixXd out;
  for (std::size_t i = 0; i < m; ++i) {
    const json& row = rows[i];
    if (!row.is_array() || row.empty()) {
      throw InvalidProblem(where + " row " + std::to_string(i) + " must be a non-empty array of numbers");
    }
    if (i == 0) {
      n = row.size();
      out.resize(static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(n));
    } else if (row.size() != n) {
      throw InvalidProblem(where + " row " + std::to_string(i) + " has " + std::to_string(row.size()) +
                           " entries, row 0 has " + std::to_string(n));
    }
    for (std::size_t j = 0; j < n; ++j) {
      if (!row[j].is_number() || !std::isfinite(row[j].get<double>())) {
        throw InvalidProblem(where + " entry (" + std::to_string(i) + ", " + std::to_string(j) +
                             ") is not a finite number: " + row[j].dump());
      }
      out(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = row[j].get<double>();
    }
  }
  return out;
}

json vector_json(const Eigen::VectorXd& v) { return json(std::vector<double>(v.data(), v.data() + v.size())); }

}  // namespace

bool is_bimatrix_file(const std::string& path) {
  if (path.size() < 5 || path.substr(path.size() - 5) != ".json") return false;
  std::ifstream in(path);
  if (!in) return false;
  const json document = json::parse(in, nullptr, /*allow_exceptions=*/false);
  return document.is_object() && document.contains("type") && document["type"] == "bimatrix";
}

int run_bimatrix(const SolveArguments& args) {
  if (args.method != "auto" && args.method != "lemke-howson") {
    throw InvalidProblem("a bimatrix game is solved by Lemke–Howson (--method lemke-howson or auto), not '" +
                         args.method + "'");
  }
  if (!args.warm_start.empty() || !args.covering_vector.empty() || !args.plot.empty() || args.trace) {
    throw InvalidProblem("--warm-start, --covering, --plot and --trace do not apply to a bimatrix game");
  }
  if (!(std::isfinite(args.tolerance) && args.tolerance > 0)) {
    throw InvalidProblem("tolerance must be finite and > 0, got " + std::to_string(args.tolerance));
  }
  const json document = read_json(args.file);
  const BimatrixGame game = bimatrix_game(read_matrix(document, "A", args.file), read_matrix(document, "B", args.file));
  const auto m = static_cast<int>(game.A.rows());
  const auto n = static_cast<int>(game.A.cols());
  if (args.label >= 0 && args.all) throw InvalidProblem("--label and --all exclude each other");
  if (args.label >= m + n) {
    throw InvalidProblem("--label " + std::to_string(args.label) + " is out of range: a " + std::to_string(m) + "×" +
                         std::to_string(n) + " game has labels 0 … " + std::to_string(m + n - 1));
  }

  EquilibriumSet found;
  if (args.all) {
    found = lemke_howson_all_labels(game);
  } else {
    const int label = std::max(args.label, 0);
    found.equilibria.push_back(lemke_howson(game, label));
    found.labels.push_back({label});
  }
  // Regret is in payoff units: judged against the tolerance times the largest payoff.
  const double scale = std::max({1.0, game.A.cwiseAbs().maxCoeff(), game.B.cwiseAbs().maxCoeff()});
  bool all_solved = !found.equilibria.empty();
  for (const Equilibrium& e : found.equilibria) all_solved = all_solved && e.regret <= args.tolerance * scale;

  if (args.json) {
    json out;
    out["type"] = "bimatrix";
    out["method"] = "lemke-howson";
    out["status"] = all_solved ? "solved" : "not-solved";
    out["rows"] = m;
    out["columns"] = n;
    json list = json::array();
    for (std::size_t k = 0; k < found.equilibria.size(); ++k) {
      const Equilibrium& e = found.equilibria[k];
      list.push_back({{"x", vector_json(e.x)},
                      {"y", vector_json(e.y)},
                      {"payoff1", e.payoff1},
                      {"payoff2", e.payoff2},
                      {"regret", e.regret},
                      {"pivots", e.pivots},
                      {"labels", found.labels[k]}});
    }
    out["equilibria"] = list;
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << args.file << " (bimatrix game, " << m << "×" << n << ")\n"
              << "lemke-howson: " << (all_solved ? "solved" : "not solved") << ", " << found.equilibria.size()
              << (found.equilibria.size() == 1 ? " equilibrium" : " distinct equilibria")
              << (args.all ? " from the " + std::to_string(m + n) + " starting labels" : "") << "\n";
    for (std::size_t k = 0; k < found.equilibria.size(); ++k) {
      const Equilibrium& e = found.equilibria[k];
      std::cout << "equilibrium " << k + 1 << " (labels";
      for (int label : found.labels[k]) std::cout << " " << label;
      std::cout << "; " << e.pivots << " pivots)\n"
                << "  x = " << format_vector(e.x) << "\n"
                << "  y = " << format_vector(e.y) << "\n"
                << "  payoffs " << e.payoff1 << ", " << e.payoff2 << "; regret " << e.regret << "\n";
    }
  }
  return all_solved ? 0 : 1;
}

}  // namespace perp::cli
