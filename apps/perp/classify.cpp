// `perp classify`: the matrix classes of a problem's M with witnesses, and the recommendation.
#include "classify.hpp"

#include <CLI/CLI.hpp>
#include <iostream>

#include "perp/perp.hpp"

namespace perp::cli {

CLI::App* add_classify_command(CLI::App& app, ClassifyArguments& args) {
  const ClassifyOptions defaults;
  args.tolerance = defaults.tolerance;
  args.max_minor_size = static_cast<long>(defaults.max_minor_size);
  args.max_copositive_size = static_cast<long>(defaults.max_copositive_size);
  CLI::App* command =
      app.add_subcommand("classify", "Matrix classes of M (P, PSD, copositive, ...) with witnesses, and a method");
  command->add_option("FILE", args.file, "problem file: .dat (Siconos), .json LCP, or .json with only \"M\"")
      ->required();
  command->add_flag("--json", args.json, "print one JSON object instead of a table");
  command->add_option("--tol", args.tolerance, "zero tolerance, relative to max|M_ij|")->capture_default_str();
  command->add_option("--max-minor-size", args.max_minor_size, "largest n for the exact P/P0 enumeration")
      ->capture_default_str();
  command->add_option("--max-copositive-size", args.max_copositive_size, "largest n for the exact copositivity test")
      ->capture_default_str();
  args.max_minor_nodes = defaults.max_minor_nodes;
  args.max_copositive_submatrices = defaults.max_copositive_submatrices;
  command
      ->add_option("--max-minor-nodes", args.max_minor_nodes,
                   "budget of the P/P0 principal-minor enumeration (nodes); past it P/P0 stay undecided")
      ->capture_default_str();
  command
      ->add_option("--max-copositive-submatrices", args.max_copositive_submatrices,
                   "budget of the exact copositivity test (submatrices); past it the classes stay undecided")
      ->capture_default_str();
  return command;
}

int run_classify(const ClassifyArguments& args) {
  const Eigen::MatrixXd M = read_matrix_file(args.file);
  ClassifyOptions options;
  options.tolerance = args.tolerance;
  options.max_minor_size = static_cast<Eigen::Index>(args.max_minor_size);
  options.max_copositive_size = static_cast<Eigen::Index>(args.max_copositive_size);
  options.max_minor_nodes = args.max_minor_nodes;
  options.max_copositive_submatrices = args.max_copositive_submatrices;
  const MatrixReport report = classify(M, options);
  const Recommendation recommendation = recommend(report, report.n);
  if (args.json) {
    std::cout << report_to_json(report, recommendation) << "\n";
  } else {
    std::cout << args.file << "\n" << report_to_text(report, recommendation);
  }
  return 0;
}

}  // namespace perp::cli
