#pragma once
/// \file
/// Umbrella header: everything a user of perp needs.

#include "perp/analysis/classify.hpp"
#include "perp/core/error.hpp"
#include "perp/core/lcp.hpp"
#include "perp/core/ncp_function.hpp"
#include "perp/core/residual.hpp"
#include "perp/core/result.hpp"
#include "perp/core/status.hpp"
#include "perp/io/json.hpp"
#include "perp/io/report.hpp"
#include "perp/io/siconos.hpp"
#include "perp/solvers/enumeration.hpp"
#include "perp/solvers/lemke.hpp"
#include "perp/solvers/method.hpp"
#include "perp/solvers/murty.hpp"
#include "perp/solvers/options.hpp"
#include "perp/solvers/pgs.hpp"
#include "perp/solvers/recommend.hpp"
#include "perp/solvers/solve.hpp"
