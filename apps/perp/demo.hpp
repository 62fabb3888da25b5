#pragma once
#include <string>

namespace perp::cli {
/// `perp demo`: the chapter's worked examples and a few corpus problems. Returns 0 when every
/// example behaved as the chapter says.
int run_demo(const std::string& data_dir);
}  // namespace perp::cli
