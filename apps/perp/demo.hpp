#pragma once
#include <string>

namespace perp::cli {
/// `perp demo`: the worked examples of [chapter] and a few corpus problems. Returns 0 when every
/// example behaved as [chapter] says.
int run_demo(const std::string& data_dir);
}  // namespace perp::cli
