#include "perp/io/report.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

namespace perp {
namespace {

using nlohmann::ordered_json;

ordered_json vector_json(const Eigen::VectorXd& v) {
  ordered_json array = ordered_json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) array.push_back(v[i]);
  return array;
}

ordered_json witness_json(const Witness& witness) {
  return std::visit(
      [](const auto& w) -> ordered_json {
        using T = std::decay_t<decltype(w)>;
        ordered_json o;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, QuadraticFormWitness>) {
          o["x"] = vector_json(w.x);
          o["value"] = w.value;
          if (w.symmetric_product) o["symmetric_product"] = vector_json(*w.symmetric_product);
        } else if constexpr (std::is_same_v<T, MinorWitness>) {
          o["indices"] = w.indices;
          o["minor"] = w.minor;
        } else if constexpr (std::is_same_v<T, EntryWitness>) {
          o["row"] = w.row;
          o["col"] = w.col;
          o["value"] = w.value;
          if (w.transposed) o["transposed"] = *w.transposed;
        } else if constexpr (std::is_same_v<T, RowWitness>) {
          o["row"] = w.row;
          o["diagonal"] = w.diagonal;
          o["off_diagonal_sum"] = w.off_diagonal_sum;
        } else {
          o["x"] = vector_json(w.x);
          o["products"] = vector_json(w.products);
          o["transposed"] = w.transposed;
        }
        return o;
      },
      witness);
}

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

std::string vector_text(const Eigen::VectorXd& v) {
  constexpr Eigen::Index kShown = 8;
  std::string text = "[";
  for (Eigen::Index i = 0; i < v.size() && i < kShown; ++i) text += (i == 0 ? "" : ", ") + number(v[i]);
  if (v.size() > kShown) text += ", ... (" + std::to_string(v.size()) + " entries)";
  return text + "]";
}

std::string holds_text(const std::optional<bool>& holds) {
  if (!holds) return "?";
  return *holds ? "yes" : "no";
}

}  // namespace

std::string witness_to_text(const Witness& witness) {
  return std::visit(
      [](const auto& w) -> std::string {
        using T = std::decay_t<decltype(w)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "";
        } else if constexpr (std::is_same_v<T, QuadraticFormWitness>) {
          std::string text = "x = " + vector_text(w.x) + ", x^T M x = " + number(w.value);
          if (w.symmetric_product) text += ", (M + M^T) x = " + vector_text(*w.symmetric_product);
          return text;
        } else if constexpr (std::is_same_v<T, MinorWitness>) {
          std::string text = "minor {";
          for (std::size_t k = 0; k < w.indices.size(); ++k)
            text += (k == 0 ? "" : ", ") + std::to_string(w.indices[k]);
          return text + "} = " + number(w.minor);
        } else if constexpr (std::is_same_v<T, EntryWitness>) {
          std::string text = "M(" + std::to_string(w.row) + ", " + std::to_string(w.col) + ") = " + number(w.value);
          if (w.transposed) {
            text += ", M(" + std::to_string(w.col) + ", " + std::to_string(w.row) + ") = " + number(*w.transposed);
          }
          return text;
        } else if constexpr (std::is_same_v<T, RowWitness>) {
          return "row " + std::to_string(w.row) + ": |diagonal| = " + number(w.diagonal) + " <= off-diagonal sum " +
                 number(w.off_diagonal_sum);
        } else {
          return "x = " + vector_text(w.x) + (w.transposed ? ", x_i (M^T x)_i = " : ", x_i (M x)_i = ") +
                 vector_text(w.products);
        }
      },
      witness);
}

std::string report_to_json(const MatrixReport& report, const Recommendation& recommendation, int indent) {
  ordered_json object;
  object["n"] = report.n;
  object["scale"] = report.scale;
  object["tolerance"] = report.tolerance;
  ordered_json classes = ordered_json::object();
  for (const MatrixClass c : all_matrix_classes()) {
    const ClassAnswer& answer = report[c];
    ordered_json entry;
    entry["holds"] = answer.holds ? ordered_json(*answer.holds) : ordered_json(nullptr);
    entry["method"] = to_string(answer.decision);
    entry["witness"] = witness_json(answer.witness);
    entry["reason"] = answer.reason;
    classes[to_string(c)] = std::move(entry);
  }
  object["classes"] = std::move(classes);
  object["implications"] = report.implications;
  ordered_json rec;
  rec["method"] = to_string(recommendation.method);
  rec["reason"] = recommendation.reason;
  ordered_json order = ordered_json::array();
  for (const Method m : recommendation.order) order.push_back(to_string(m));
  rec["order"] = std::move(order);
  object["recommendation"] = std::move(rec);
  return object.dump(indent < 0 ? -1 : indent, ' ', false, ordered_json::error_handler_t::replace);
}

std::string report_to_text(const MatrixReport& report, const Recommendation& recommendation) {
  std::string text = "n = " + std::to_string(report.n) + ", max|M_ij| = " + number(report.scale) + ", zero tolerance " +
                     number(report.tolerance) + "\n\n";
  char line[160];
  std::snprintf(line, sizeof line, "%-22s %-5s %-21s %s\n", "class", "holds", "method", "reason / witness");
  text += line;
  for (const MatrixClass c : all_matrix_classes()) {
    const ClassAnswer& answer = report[c];
    std::snprintf(line, sizeof line, "%-22s %-5s %-21s ", to_string(c).c_str(), holds_text(answer.holds).c_str(),
                  to_string(answer.decision).c_str());
    text += line + answer.reason + "\n";
    const std::string witness = witness_to_text(answer.witness);
    if (!witness.empty()) text += std::string(50, ' ') + "witness: " + witness + "\n";
  }
  text += "\nimplications:\n";
  if (report.implications.empty()) text += "  (none proven)\n";
  for (const std::string& implication : report.implications) text += "  - " + implication + "\n";
  text += "\nrecommendation: " + to_string(recommendation.method);
  if (recommendation.order.size() > 1) {
    text += " (then";
    for (std::size_t k = 1; k < recommendation.order.size(); ++k) {
      text += (k == 1 ? " " : ", ") + to_string(recommendation.order[k]);
    }
    text += ")";
  }
  return text + "\n  " + recommendation.reason + "\n";
}

}  // namespace perp
