// The library's configuration layer: the declarations, JSON in and out, and
// that every declared parameter reaches what runs.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "strata/strata.hpp"

namespace strata::config {
namespace {

/// Runs `f` and returns the message of the invalid_argument it throws
/// (fails the test when it throws nothing).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const invalid_argument& e) {
    return e.message();
  }
  ADD_FAILURE() << "expected invalid_argument";
  return "";
}

/// Sets `path` from text as the flag `where` would.
void flag(SolverConfig& cfg, const std::string& where, const std::string& path, const char* value) {
  const Parameter* p = find_parameter(path);
  ASSERT_NE(p, nullptr) << path;
  set_parameter_from_text(cfg, *p, value, where);
}

void set(SolverConfig& cfg, const std::string& path, const Value& v) {
  const Parameter* p = find_parameter(path);
  ASSERT_NE(p, nullptr) << path;
  set_parameter(cfg, *p, v, path);
}

TEST(ConfigDeclarations, AreUniqueDocumentedAndTheirDefaultsValid) {
  std::set<std::string> paths;
  std::map<std::string, ParameterType> flag_types;
  for (const auto& p : parameters()) {
    EXPECT_TRUE(paths.insert(p.path).second) << "declared twice: " << p.path;
    EXPECT_FALSE(p.doc.empty()) << p.path;
    // The default is a valid value of the declaration.
    SolverConfig cfg;
    EXPECT_NO_THROW(set_parameter(cfg, p, p.default_value(), p.path)) << p.path;
    EXPECT_TRUE(same_settings(cfg, SolverConfig{})) << p.path;
    // A flag shared by several parameters sets values of one type.
    for (const auto& f : p.flags) {
      const auto [it, fresh] = flag_types.emplace(f, p.type);
      EXPECT_TRUE(fresh || it->second == p.type) << f;
    }
    if (!p.negating_flag.empty()) {
      EXPECT_EQ(p.type, ParameterType::boolean) << p.path;
    }
  }
  // Every older flag of the strata program is still declared.
  for (const char* f : {"--solver",
                        "--precond",
                        "--tol",
                        "--atol",
                        "--maxit",
                        "--restart",
                        "--omega",
                        "--degree",
                        "--amg",
                        "--cycle",
                        "--pre-sweeps",
                        "--post-sweeps",
                        "--smoother",
                        "--max-levels",
                        "--coarse-size",
                        "--strength",
                        "--max-row-sum",
                        "--interpolation",
                        "--pmax",
                        "--truncation",
                        "--aggressive-levels",
                        "--aggressive-interpolation",
                        "--aggressive-paths",
                        "--aggressive-stage-pmax",
                        "--aggregation-strength",
                        "--dimension",
                        "--kcycle-levels",
                        "--kcycle-flavour",
                        "--profile-levels"}) {
    EXPECT_TRUE(flag_types.count(f)) << f;
  }
  EXPECT_EQ(find_parameter("preconditioner.amg.keep_resetup_data")->negating_flag,
            "--drop-resetup-data");
}

TEST(ConfigDeclarations, DefaultsComeFromTheParameterStructs) {
  const SolverConfig cfg;
  EXPECT_EQ(find_parameter("solver.tolerance")->default_value(),
            Value(KrylovParams{}.relative_tolerance));
  EXPECT_EQ(find_parameter("preconditioner.amg.classical.seed")->default_value(),
            Value(amg::ClassicalParams{}.seed));
  EXPECT_EQ(find_parameter("preconditioner.amg.kcycle_threshold")->default_value(),
            Value(amg::HierarchyParams{}.kcycle_threshold));
  EXPECT_EQ(find_parameter("preconditioner.chebyshev.lower_fraction")->default_value(),
            Value(ChebyshevParams{}.lower_fraction));
  EXPECT_EQ(find_parameter("preconditioner.amg.coarse_size")->default_value(),
            Value(std::int64_t(amg::HierarchyParams{}.coarse_size)));
}

TEST(ConfigJson, WritesEveryParameterAndReadsItBack) {
  SolverConfig cfg;
  set(cfg, "solver.type", std::string("fgmres"));
  set(cfg, "solver.tolerance", 1.0 / 3.0);
  set(cfg, "solver.relative_to", std::string("initial_residual"));
  set(cfg, "preconditioner.chebyshev.kind", std::string("first"));
  set(cfg, "preconditioner.amg.coarse_size", std::int64_t(1) << 40);
  set(cfg, "preconditioner.amg.keep_resetup_data", false);
  set(cfg, "preconditioner.amg.classical.seed", std::uint64_t(18446744073709551615u));
  set(cfg, "preconditioner.amg.aggregation.strength_threshold", 0.1);
  const std::string text = config_to_json(cfg);
  for (const auto& p : parameters()) {
    const auto leaf = p.path.substr(p.path.rfind('.') + 1);
    EXPECT_NE(text.find("\"" + leaf + "\""), std::string::npos) << p.path;
  }
  const SolverConfig back = config_from_json(text);
  EXPECT_TRUE(same_settings(back, cfg));
  EXPECT_FALSE(same_settings(back, SolverConfig{}));
  EXPECT_EQ(config_to_json(back), text);
  EXPECT_EQ(back.solver.params.relative_tolerance, 1.0 / 3.0);  // every bit
  EXPECT_EQ(back.preconditioner.amg.classical.seed, 18446744073709551615u);
  EXPECT_EQ(back.preconditioner.amg.hierarchy.coarse_size, size_type(1) << 40);
}

TEST(ConfigJson, ReadsOnTopOfABaseAndKeepsTheRest) {
  SolverConfig base;
  base.solver.params.max_iterations = 7;
  const auto cfg = config_from_json(R"({"solver": {"tolerance": 1e-3}})", base);
  EXPECT_EQ(cfg.solver.params.relative_tolerance, 1e-3);
  EXPECT_EQ(cfg.solver.params.max_iterations, 7);
  EXPECT_TRUE(same_settings(config_from_json("{}"), SolverConfig{}));
}

TEST(ConfigJson, UnknownKeysAreRejectedByTheirFullPath) {
  const auto m = error_of([] {
    config_from_json(R"({"preconditioner": {"amg": {"classical": {"strenght_threshold": 0.5}}}})");
  });
  EXPECT_NE(m.find("unknown key 'preconditioner.amg.classical.strenght_threshold'"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("strength_threshold"), std::string::npos) << m;  // the keys known there
  const auto top = error_of([] { config_from_json(R"({"solvr": {}})"); });
  EXPECT_NE(top.find("unknown key 'solvr'; expected one of: preconditioner, solver"),
            std::string::npos)
      << top;
}

TEST(ConfigJson, WrongTypesNameThePathTheTypeAndTheValue) {
  const auto m = error_of([] { config_from_json(R"({"solver": {"max_iterations": "many"}})"); });
  EXPECT_NE(m.find("'solver.max_iterations' must be an integer >= 0, got string \"many\""),
            std::string::npos)
      << m;
  const auto f = error_of([] { config_from_json(R"({"solver": {"max_iterations": 2.5}})"); });
  EXPECT_NE(f.find("'solver.max_iterations' must be an integer >= 0, got number 2.5"),
            std::string::npos)
      << f;
  const auto b =
      error_of([] { config_from_json(R"({"preconditioner": {"amg": {"profile_levels": 1}}})"); });
  EXPECT_NE(b.find("'preconditioner.amg.profile_levels' must be true or false, got number 1"),
            std::string::npos)
      << b;
  const auto o = error_of([] { config_from_json(R"({"preconditioner": {"amg": 3}})"); });
  EXPECT_NE(o.find("'preconditioner.amg' must be an object, got number 3"), std::string::npos) << o;
  const auto s = error_of([] { config_from_json(R"({"preconditioner": {"amg": {"seed": 1}}})"); });
  EXPECT_NE(s.find("unknown key 'preconditioner.amg.seed'"), std::string::npos) << s;
  const auto j = error_of([] { config_from_json(R"({"solver": )"); });
  EXPECT_NE(j.find("not valid JSON"), std::string::npos) << j;
}

TEST(ConfigJson, OutOfRangeValuesNameThePathTheValueAndTheRange) {
  const auto m = error_of([] {
    config_from_json(R"({"preconditioner": {"amg": {"classical": {"strength_threshold": 1.5}}}})");
  });
  EXPECT_NE(m.find("'preconditioner.amg.classical.strength_threshold' must be a number in [0, 1], "
                   "got 1.5"),
            std::string::npos)
      << m;
  const auto c = error_of([] { config_from_json(R"({"solver": {"type": "minres"}})"); });
  EXPECT_NE(c.find("'solver.type' must be cg, bicgstab, gmres, fgmres or fcg, got minres"),
            std::string::npos)
      << c;
  const auto s = error_of(
      [] { config_from_json(R"({"preconditioner": {"amg": {"aggregation": {"seed": -1}}}})"); });
  EXPECT_NE(s.find("'preconditioner.amg.aggregation.seed' must be a non-negative integer, got -1"),
            std::string::npos)
      << s;
  const auto k =
      error_of([] { config_from_json(R"({"preconditioner": {"amg": {"kcycle_threshold": 1}}})"); });
  EXPECT_NE(k.find("must be a number in [0, 1), got 1"), std::string::npos) << k;
  const auto i = error_of(
      [] { config_from_json(R"({"preconditioner": {"amg": {"max_levels": 3000000000}}})"); });
  EXPECT_NE(i.find("'preconditioner.amg.max_levels' must be an integer >= 1, got 3000000000"),
            std::string::npos)
      << i;
}

// Integers past the member's type are errors, never truncated (4294967297
// once became 1); 0 iterations is a valid request.
TEST(ConfigJson, IntegersOutOfRangeAreErrorsAndZeroIterationsIsValid) {
  const auto m =
      error_of([] { config_from_json(R"({"solver": {"max_iterations": 4294967297}})"); });
  EXPECT_EQ(m, "config: 'solver.max_iterations' must be an integer >= 0, got 4294967297");
  const auto u =
      error_of([] { config_from_json(R"({"solver": {"max_iterations": 18446744073709551615}})"); });
  EXPECT_NE(u.find("got 18446744073709551615"), std::string::npos) << u;
  const auto r = error_of([] { config_from_json(R"({"solver": {"restart": -4294967295}})"); });
  EXPECT_NE(r.find("'solver.restart' must be an integer >= 1, got -4294967295"), std::string::npos)
      << r;
  EXPECT_EQ(config_from_json(R"({"solver": {"max_iterations": 0}})").solver.params.max_iterations,
            0);
}

// Nesting is checked before a document is built: 100000 levels (a crash
// once) are refused with a message, and so are 33; 32 get past the check
// to the unknown-key error.
TEST(ConfigJson, DeepNestingIsRefusedWithoutRecursion) {
  const auto nested = [](int depth, const std::string& open, const std::string& close) {
    std::string text;
    for (int i = 0; i < depth; ++i) text += open;
    text += "1";
    for (int i = 0; i < depth; ++i) text += close;
    return text;
  };
  for (const auto& text : {nested(100000, "[", "]"), nested(100000, R"({"a":)", "}"),
                           nested(33, "[", "]"), "{\"solver\": " + nested(32, "[", "]") + "}"}) {
    const auto e = error_of([&] { config_from_json(text); });
    EXPECT_EQ(e,
              "config: the text: objects and arrays are nested more than 32 levels deep; a "
              "configuration needs at most 4");
  }
  const auto ok_depth = error_of([&] { config_from_json(nested(32, R"({"a":)", "}")); });
  EXPECT_EQ(ok_depth.rfind("config: unknown key 'a'", 0), 0u) << ok_depth;
  // A long wrong value is cut short in the message.
  const auto long_value = error_of([] {
    config_from_json(R"({"solver": {"tolerance": ")" + std::string(1000, 'x') + R"("}})");
  });
  EXPECT_LT(long_value.size(), 200u) << long_value;
  EXPECT_NE(long_value.find("xxx..."), std::string::npos) << long_value;
}

// The settings a front end gave, and those among them that change nothing.
TEST(ConfigGiven, RecordsEachSpellingAndNamesSettingsWithoutEffect) {
  SolverConfig cfg = config_from_json(
      R"({"solver": {"restart": 50}, "preconditioner": {"degree": 4, "omega": 0.8}})");
  EXPECT_TRUE(was_given(cfg, "solver.restart"));
  EXPECT_TRUE(was_given(cfg, "preconditioner.chebyshev.degree"));
  EXPECT_FALSE(was_given(cfg, "solver.tolerance"));
  ASSERT_EQ(cfg.given.size(), 3u);
  // The older key "preconditioner.omega" set both weights: one entry.
  EXPECT_EQ(cfg.given[0].where, "preconditioner.degree");
  EXPECT_EQ(cfg.given[1].where, "preconditioner.omega");
  EXPECT_EQ(cfg.given[1].paths, (std::vector<std::string>{"preconditioner.jacobi.omega",
                                                          "preconditioner.l1jacobi.omega"}));
  // Default: CG with classical AMG and its auto smoother, on the host
  // hybrid Gauss-Seidel (gs). Neither Jacobi weight reaches it, so
  // "preconditioner.omega" takes no effect either.
  EXPECT_EQ(ineffective_settings(cfg),
            (std::vector<std::string>{
                "preconditioner.degree has no effect: the chebyshev settings serve "
                "preconditioner.type chebyshev or preconditioner.amg.smoother chebyshev; the AMG "
                "smoother is gs (preconditioner.amg.smoother auto with classical coarsening)",
                "preconditioner.omega has no effect: the jacobi settings serve "
                "preconditioner.type jacobi or preconditioner.amg.smoother jacobi; the AMG "
                "smoother is gs (preconditioner.amg.smoother auto with classical coarsening)",
                "solver.restart has no effect: only GMRES and FGMRES restart; solver.type is cg"}));
  flag(cfg, "--solver", "solver.type", "gmres");
  flag(cfg, "--precond", "preconditioner.type", "chebyshev");
  EXPECT_EQ(ineffective_settings(cfg),
            (std::vector<std::string>{
                "preconditioner.omega has no effect: the jacobi settings serve preconditioner.type "
                "jacobi or preconditioner.amg.smoother jacobi; preconditioner.type is chebyshev"}));

  // Classical options under aggregation, K-cycle options without a
  // K-cycle, aggressive options without aggressive levels; a setting
  // given at its default value is not listed.
  SolverConfig agg;
  flag(agg, "--amg", "preconditioner.amg.coarsening", "aggregation");
  flag(agg, "--strength", "preconditioner.amg.classical.strength_threshold", "0.4");
  flag(agg, "--kcycle-levels", "preconditioner.amg.kcycle_levels", "3");
  flag(agg, "--interpolation", "preconditioner.amg.classical.interpolation", "ext");
  flag(agg, "--preconditioner.amg.classical.seed", "preconditioner.amg.classical.seed",
       format_value(find_parameter("preconditioner.amg.classical.seed")->default_value()).c_str());
  EXPECT_EQ(ineffective_settings(agg),
            (std::vector<std::string>{
                "--strength has no effect: classical coarsening settings; "
                "preconditioner.amg.coarsening is aggregation",
                "--kcycle-levels has no effect: K-cycle settings; preconditioner.amg.cycle is V",
                "--interpolation has no effect: classical coarsening settings; "
                "preconditioner.amg.coarsening is aggregation"}));
  // Automatic aggressive coarsening (the default) may coarsen a level
  // aggressively, so its settings count; with none asked for they do not.
  SolverConfig aggressive;
  flag(aggressive, "--aggressive-paths", "preconditioner.amg.classical.aggressive_num_paths", "1");
  EXPECT_TRUE(ineffective_settings(aggressive).empty());
  flag(aggressive, "--aggressive-levels", "preconditioner.amg.classical.aggressive_levels", "0");
  EXPECT_EQ(ineffective_settings(aggressive),
            (std::vector<std::string>{
                "--aggressive-paths has no effect: no level is coarsened aggressively "
                "(preconditioner.amg.classical.aggressive_levels is 0)"}));
  flag(aggressive, "--aggressive-levels", "preconditioner.amg.classical.aggressive_levels", "1");
  EXPECT_TRUE(ineffective_settings(aggressive).empty());
  // Jacobi's weight under the automatic aggregation smoother takes effect
  // (scaled by 4 / (3 rho)); its estimate switch does not.
  SolverConfig jacobi;
  flag(jacobi, "--amg", "preconditioner.amg.coarsening", "aggregation");
  flag(jacobi, "--preconditioner.jacobi.omega", "preconditioner.jacobi.omega", "0.5");
  flag(jacobi, "--preconditioner.jacobi.estimate_omega", "preconditioner.jacobi.estimate_omega",
       "true");
  EXPECT_EQ(ineffective_settings(jacobi),
            (std::vector<std::string>{
                "--preconditioner.jacobi.estimate_omega has no effect: the automatic AMG smoother "
                "(aggregation's, and classical AMG's on the device) always estimates omega"}));
  // With classical coarsening the automatic smoother follows where the
  // levels live: the jacobi settings serve it on the device, the l1jacobi
  // ones nowhere, and on the host (Gauss-Seidel) neither.
  SolverConfig classical;
  flag(classical, "--preconditioner.jacobi.estimation_steps",
       "preconditioner.jacobi.estimation_steps", "7");
  EXPECT_TRUE(ineffective_settings(classical, Location::cuda).empty());
  EXPECT_EQ(ineffective_settings(classical, Location::host),
            (std::vector<std::string>{
                "--preconditioner.jacobi.estimation_steps has no effect: the jacobi settings serve "
                "preconditioner.type jacobi or preconditioner.amg.smoother jacobi; the AMG "
                "smoother is gs (preconditioner.amg.smoother auto with classical coarsening)"}));
  SolverConfig l1;
  flag(l1, "--preconditioner.l1jacobi.omega", "preconditioner.l1jacobi.omega", "0.9");
  EXPECT_EQ(ineffective_settings(l1, Location::cuda),
            (std::vector<std::string>{
                "--preconditioner.l1jacobi.omega has no effect: the l1jacobi settings serve "
                "preconditioner.type l1jacobi or preconditioner.amg.smoother l1jacobi; the AMG "
                "smoother is jacobi (preconditioner.amg.smoother auto with classical "
                "coarsening)"}));
  // AMG settings without AMG.
  SolverConfig none;
  flag(none, "--precond", "preconditioner.type", "none");
  flag(none, "--cycle", "preconditioner.amg.cycle", "W");
  EXPECT_EQ(ineffective_settings(none),
            (std::vector<std::string>{"--cycle has no effect: AMG settings need "
                                      "preconditioner.type amg; it is none"}));
}

// Restart and truncation above the problem's size are lowered to it; the
// Krylov vectors must fit the memory available.
TEST(ConfigFit, RestartAndTruncationFitTheProblem) {
  SolverConfig cfg;
  flag(cfg, "--solver", "solver.type", "gmres");
  flag(cfg, "--restart", "solver.restart", "100000");
  const auto changes = fit_to_problem(cfg, 10, Executor::host());
  EXPECT_EQ(cfg.solver.restart, 10);
  EXPECT_EQ(changes, (std::vector<std::string>{
                         "solver.restart 100000 lowered to 10, the number of unknowns: more "
                         "Krylov vectors than unknowns is never useful"}));
  EXPECT_TRUE(fit_to_problem(cfg, 10, Executor::host()).empty());
  SolverConfig fcg;
  flag(fcg, "--solver", "solver.type", "fcg");
  flag(fcg, "--solver.truncation", "solver.truncation", "7");
  fit_to_problem(fcg, 3, Executor::host());
  EXPECT_EQ(fcg.solver.truncation, 3);
  // A restart that fits the problem but not the memory: 2^30 unknowns and
  // 2^30 vectors would need 8 EB.
  if (Executor::host().available_memory() > 0) {
    SolverConfig big;
    flag(big, "--solver", "solver.type", "fgmres");
    flag(big, "--restart", "solver.restart", "1073741824");
    try {
      fit_to_problem(big, size_type{1} << 30, Executor::host());
      ADD_FAILURE() << "expected out_of_memory";
    } catch (const out_of_memory& e) {
      EXPECT_EQ(e.message().rfind("config: solver.restart 1073741824 needs about ", 0), 0u)
          << e.message();
      EXPECT_NE(e.message().find("is available on host; choose a smaller value"), std::string::npos)
          << e.message();
    }
  }
}

TEST(ConfigJson, TheTwoStrengthThresholdsAreToldApartByPath) {
  const auto cfg = config_from_json(R"({"preconditioner": {"amg": {
      "classical": {"strength_threshold": 0.4}, "aggregation": {"strength_threshold": 0.3}}}})");
  EXPECT_EQ(cfg.preconditioner.amg.classical.strength_threshold, 0.4);
  EXPECT_EQ(cfg.preconditioner.amg.aggregation.strength_threshold, 0.3);
  const auto* classical = find_parameter("preconditioner.amg.classical.strength_threshold");
  const auto* aggregation = find_parameter("preconditioner.amg.aggregation.strength_threshold");
  EXPECT_EQ(classical->flags, std::vector<std::string>{"--strength"});
  EXPECT_EQ(aggregation->flags, std::vector<std::string>{"--aggregation-strength"});
  // Their ranges differ too: a negative alpha means "from the dimension".
  SolverConfig c;
  EXPECT_NO_THROW(set_parameter_from_text(c, *aggregation, "-1", "--aggregation-strength"));
  EXPECT_EQ(error_of([&] { set_parameter_from_text(c, *classical, "-1", "--strength"); }),
            "--strength '-1': expected a number in [0, 1]");
}

TEST(ConfigJson, OlderKeysStillSetTheirParameters) {
  const auto cfg = config_from_json(R"({"preconditioner": {"omega": 0.7, "degree": 5}})");
  EXPECT_EQ(cfg.preconditioner.jacobi.omega, 0.7);
  EXPECT_EQ(cfg.preconditioner.l1jacobi.omega, 0.7);
  EXPECT_EQ(cfg.preconditioner.chebyshev.degree, 5);
  // A parameter's own key wins over an older one, wherever it stands.
  const auto both =
      config_from_json(R"({"preconditioner": {"jacobi": {"omega": 0.9}, "omega": 0.7}})");
  EXPECT_EQ(both.preconditioner.jacobi.omega, 0.9);
  EXPECT_EQ(both.preconditioner.l1jacobi.omega, 0.7);
  // Older keys are never written: "omega" only in jacobi, l1jacobi and the
  // three Gauss-Seidel sections (gauss_seidel, multicolor_gs, two_stage_gs).
  const std::string text = config_to_json(cfg);
  std::size_t omegas = 0;
  for (auto at = text.find("\"omega\""); at != std::string::npos;
       at = text.find("\"omega\"", at + 1)) {
    ++omegas;
  }
  EXPECT_EQ(omegas, 5u);
  EXPECT_TRUE(same_settings(config_from_json(config_to_json(cfg)), cfg));
}

TEST(ConfigText, ReadsCommandLineValuesAndNamesTheFlagOnErrors) {
  SolverConfig cfg;
  set_parameter_from_text(cfg, *find_parameter("solver.tolerance"), "1e-6", "--tol");
  set_parameter_from_text(cfg, *find_parameter("preconditioner.amg.classical.seed"),
                          "18446744073709551615", "--seed");
  set_parameter_from_text(cfg, *find_parameter("preconditioner.amg.keep_resetup_data"), "false",
                          "--keep");
  EXPECT_EQ(cfg.solver.params.relative_tolerance, 1e-6);
  EXPECT_EQ(cfg.preconditioner.amg.classical.seed, 18446744073709551615u);
  EXPECT_FALSE(cfg.preconditioner.amg.hierarchy.keep_resetup_data);
  EXPECT_EQ(error_of([&] {
              set_parameter_from_text(cfg, *find_parameter("solver.max_iterations"), "12x",
                                      "--maxit");
            }),
            "--maxit '12x': expected an integer >= 0");
  EXPECT_EQ(error_of([&] {
              set_parameter_from_text(
                  cfg, *find_parameter("preconditioner.amg.classical.aggressive_interpolation"),
                  "ext+i", "--aggressive-interpolation");
            }),
            "--aggressive-interpolation 'ext+i': expected ext or ext+e");
  EXPECT_EQ(format_value(Value(0.1)), "0.1");
  EXPECT_EQ(format_value(Value(std::int64_t(-3))), "-3");
}

TEST(ConfigBuild, TheAutoSmootherFollowsTheCoarsening) {
  SolverConfig cfg;
  // Classical on the host: the library's host default, hybrid l1
  // Gauss-Seidel forward down and backward up, with the gauss_seidel settings.
  cfg.preconditioner.gauss_seidel.block_rows = 512;
  const auto host = amg_smoother(cfg, Executor::host());
  ASSERT_TRUE(std::holds_alternative<GaussSeidelParams>(host));
  EXPECT_EQ(std::get<GaussSeidelParams>(host).sweep, GaussSeidelSweep::forward);
  EXPECT_EQ(std::get<GaussSeidelParams>(host).block_rows, 512);
  EXPECT_TRUE(std::holds_alternative<GaussSeidelParams>(amg::default_smoother(Executor::host())));
  // On the device: damped Jacobi with omega from the spectral estimate, with
  // the jacobi settings (their weight and steps; the estimate always on).
  cfg.preconditioner.jacobi.omega = 0.9;
  cfg.preconditioner.jacobi.estimation_steps = 4;
  const auto device = amg_smoother(cfg, Location::cuda);
  ASSERT_TRUE(std::holds_alternative<JacobiParams>(device));
  EXPECT_TRUE(std::get<JacobiParams>(device).estimate_omega);
  EXPECT_EQ(std::get<JacobiParams>(device).omega, 0.9);
  EXPECT_EQ(std::get<JacobiParams>(device).estimation_steps, 4);
  EXPECT_TRUE(std::get<JacobiParams>(amg::default_smoother(Location::cuda)).estimate_omega);
  // The Gauss-Seidel names set the sweep.
  cfg.preconditioner.amg.smoother = AmgSmootherType::two_stage_sgs;
  cfg.preconditioner.two_stage_gs.inner_sweeps = 3;
  const auto ts = std::get<TwoStageGaussSeidelParams>(amg_smoother(cfg));
  EXPECT_EQ(ts.sweep, GaussSeidelSweep::symmetric);
  EXPECT_EQ(ts.inner_sweeps, 3);
  cfg.preconditioner.type = PreconditionerType::multicolor_gs;
  EXPECT_EQ(std::get<MulticolorGaussSeidelParams>(preconditioner_smoother(cfg)).sweep,
            GaussSeidelSweep::forward);
  cfg.preconditioner.type = PreconditionerType::amg;
  cfg.preconditioner.amg.smoother = AmgSmootherType::automatic;
  cfg.preconditioner.jacobi.omega = 0.9;
  cfg.preconditioner.amg.coarsening = CoarseningType::aggregation;
  const auto s = amg_smoother(cfg);
  ASSERT_TRUE(std::holds_alternative<JacobiParams>(s));
  EXPECT_TRUE(std::get<JacobiParams>(s).estimate_omega);
  EXPECT_EQ(std::get<JacobiParams>(s).omega, 0.9);
  cfg.preconditioner.amg.smoother = AmgSmootherType::chebyshev;
  cfg.preconditioner.chebyshev.degree = 4;
  EXPECT_EQ(std::get<ChebyshevParams>(hierarchy_params(cfg).smoother).degree, 4);
  EXPECT_NE(error_of([&] { preconditioner_smoother(cfg); }).find("is not a smoother"),
            std::string::npos);
}

// ------------------------------------------------- every parameter takes effect

/// What a solve with `cfg` did, as text: the method's history, the
/// preconditioner's description and, for AMG, its levels, setup stages,
/// per-level profile and whether it can be set up again with new values.
/// Runs on a 2D anisotropic problem (x couplings 1, y couplings 0.3), so
/// that strength thresholds matter, from x0 = 0.5 (so that ||b - A x0||
/// differs from ||b||).
std::string what_runs(const SolverConfig& cfg) {
  const auto exec = Executor::host();
  const std::shared_ptr<const CsrMatrix<double>> shared_A =
      share(gallery::anisotropic2d(exec, 32, 32, 0.3, 0.0));
  const auto& A = *shared_A;
  Vector<double> b(exec, A.rows(), 1.0), x(exec, A.rows(), 0.5);
  auto M = make_preconditioner(cfg, shared_A);
  const auto info = solve(krylov_method(cfg), CsrOperator<double>(shared_A), b, x, M.get());
  char line[64];
  std::string s = method_name(krylov_method(cfg)) + " " + to_string(info.status) + " " +
                  std::to_string(info.iterations) + " |";
  for (double r : info.residual_history) {
    std::snprintf(line, sizeof line, " %.17g", r);
    s += line;
  }
  std::snprintf(line, sizeof line, " | reference %.17g x %.17g", info.reference_norm, norm2(x));
  s += line;
  s += " | " + (M ? M->describe() : std::string("none"));
  if (auto* h = dynamic_cast<amg::Hierarchy<double>*>(M.get())) {
    const auto summary = h->summary();
    for (const auto& l : summary.levels) {
      s += " | level " + std::to_string(l.rows) + " " + std::to_string(l.nnz);
      if (l.solve_seconds > 0) s += " profiled";
    }
    for (const auto& [stage, seconds] : summary.setup_stage_seconds) s += " | " + stage;
    s += " | holds " + std::to_string(summary.setup_bytes) + " bytes";
    try {
      h->resetup();
      s += " | resetup kept";
    } catch (const invalid_argument&) {
      s += " | resetup dropped";
    }
  }
  return s;
}

/// For each parameter: the settings under which it matters, and a valid
/// value other than its default that should change what runs.
struct Change {
  std::vector<std::pair<std::string, Value>> context;
  Value value;
};

std::map<std::string, Change> changes() {
  using S = std::string;
  using I = std::int64_t;
  const std::pair<S, Value> jacobi{"preconditioner.type", S("jacobi")};
  const std::pair<S, Value> none{"preconditioner.type", S("none")};
  const std::pair<S, Value> chebyshev{"preconditioner.type", S("chebyshev")};
  const std::pair<S, Value> ilu0{"preconditioner.type", S("ilu0")};
  const std::pair<S, Value> gmres{"solver.type", S("gmres")};
  const std::pair<S, Value> aggregation{"preconditioner.amg.coarsening", S("aggregation")};
  const std::pair<S, Value> sa{"preconditioner.amg.coarsening", S("smoothed_aggregation")};
  const std::pair<S, Value> sa_blocks{"preconditioner.amg.smoothed_aggregation.block_size", I(2)};
  const std::pair<S, Value> aggressive{"preconditioner.amg.classical.aggressive_levels", I(1)};
  const std::pair<S, Value> pmis{"preconditioner.amg.classical.splitting", S("pmis")};
  const std::vector<std::pair<S, Value>> kcycle{{"solver.type", S("fcg")},
                                                {"preconditioner.amg.cycle", S("K")},
                                                {"preconditioner.amg.coarse_size", I(20)}};
  const std::string amg = "preconditioner.amg.";
  const std::string classical = amg + "classical.";
  return {
      {"solver.type", {{}, S("gmres")}},
      {"solver.tolerance", {{}, 1e-3}},
      {"solver.absolute_tolerance", {{}, 1e-2}},
      {"solver.max_iterations", {{}, I(2)}},
      {"solver.relative_to", {{}, S("initial_residual")}},
      {"solver.record_history", {{}, false}},
      // Unpreconditioned CG on the anisotropic problem: its residual rises
      // from 31 to 90 in the first iteration (past 1.5 x max(||b||, ||r0||)),
      // then falls by less than 1000x over its first 30 iterations.
      {"solver.divergence_tolerance", {{none}, 1.5}},
      {"solver.stagnation_window", {{none, {"solver.stagnation_factor", 1e-3}}, I(30)}},
      {"solver.stagnation_factor", {{none, {"solver.stagnation_window", I(30)}}, 1e-3}},
      {"solver.restart", {{{"solver.type", S("gmres")}}, I(2)}},
      {"solver.truncation", {kcycle, I(3)}},
      {"preconditioner.type", {{}, S("l1jacobi")}},
      {"preconditioner.jacobi.omega", {{jacobi}, 0.6}},
      {"preconditioner.jacobi.estimate_omega", {{jacobi}, true}},
      {"preconditioner.jacobi.estimation_steps",
       {{jacobi, {"preconditioner.jacobi.estimate_omega", true}}, I(2)}},
      {"preconditioner.l1jacobi.omega", {{{"preconditioner.type", S("l1jacobi")}}, 0.6}},
      {"preconditioner.chebyshev.kind", {{chebyshev, {"solver.type", S("gmres")}}, S("first")}},
      {"preconditioner.chebyshev.degree", {{chebyshev}, I(4)}},
      {"preconditioner.chebyshev.lower_fraction",
       {{chebyshev, {"solver.type", S("gmres")}, {"preconditioner.chebyshev.kind", S("first")}},
        0.1}},
      {"preconditioner.chebyshev.upper_fraction", {{chebyshev}, 1.5}},
      {"preconditioner.chebyshev.estimation_steps", {{chebyshev}, I(3)}},
      {"preconditioner.chebyshev.symmetric", {{chebyshev}, false}},
      {"preconditioner.ilu.level_of_fill", {{{"preconditioner.type", S("iluk")}}, I(2)}},
      {"preconditioner.ilu.drop_tolerance", {{{"preconditioner.type", S("ilut")}, gmres}, 0.1}},
      {"preconditioner.ilu.max_fill_per_row", {{{"preconditioner.type", S("ilut")}, gmres}, I(1)}},
      {"preconditioner.ilu.triangular_solve", {{ilu0}, S("jacobi")}},
      {"preconditioner.ilu.triangular_sweeps",
       {{ilu0, {"preconditioner.ilu.triangular_solve", S("jacobi")}}, I(1)}},
      {"preconditioner.gauss_seidel.omega", {{{"preconditioner.type", S("sgs")}}, 0.8}},
      {"preconditioner.gauss_seidel.block_rows", {{{"preconditioner.type", S("sgs")}}, I(100)}},
      {"preconditioner.multicolor_gs.omega", {{{"preconditioner.type", S("multicolor_sgs")}}, 0.8}},
      {"preconditioner.multicolor_gs.seed",
       {{{"preconditioner.type", S("multicolor_sgs")}}, std::uint64_t(12345)}},
      {"preconditioner.two_stage_gs.omega", {{{"preconditioner.type", S("two_stage_sgs")}}, 0.8}},
      {"preconditioner.two_stage_gs.inner_sweeps",
       {{{"preconditioner.type", S("two_stage_sgs")}}, I(3)}},
      {"preconditioner.two_stage_gs.l1", {{{"preconditioner.type", S("two_stage_sgs")}}, true}},
      {amg + "coarsening", {{}, S("aggregation")}},
      {amg + "cycle", {{}, S("W")}},
      {amg + "pre_sweeps", {{}, I(2)}},
      {amg + "post_sweeps", {{}, I(2)}},
      {amg + "max_levels", {{}, I(1)}},
      {amg + "coarse_size", {{}, I(600)}},
      {amg + "smoother", {{}, S("chebyshev")}},
      {amg + "kcycle_levels", {kcycle, I(1)}},
      {amg + "kcycle_flavour", {kcycle, S("gmres")}},
      {amg + "kcycle_threshold", {kcycle, 0.0}},
      {amg + "profile_levels", {{}, true}},
      {amg + "keep_resetup_data", {{}, false}},
      {amg + "lean_resetup_data", {{}, true}},
      // The host's default smoother (hybrid Gauss-Seidel) has no
      // single-precision form.
      {amg + "cycle_precision", {{{amg + "smoother", S("l1jacobi")}}, S("single")}},
      // Acts on distributed levels only; a serial hierarchy says it in its name.
      {amg + "agglomeration_rows", {{}, I(1000)}},
      {classical + "splitting", {{}, S("pmis")}},
      {classical + "strength_threshold", {{}, 0.5}},
      {classical + "max_row_sum", {{}, 0.1}},
      {classical + "interpolation", {{}, S("direct")}},
      {classical + "max_elements_per_row", {{}, I(1)}},
      {classical + "truncation_factor", {{}, 0.5}},
      {classical + "aggressive_levels", {{}, I(1)}},
      {classical + "aggressive_interpolation", {{aggressive}, S("ext")}},
      {classical + "aggressive_num_paths", {{aggressive}, I(1)}},
      {classical + "aggressive_stage_max_elements", {{aggressive}, I(1)}},
      {classical + "aggressive_stage_truncation_factor", {{aggressive}, 0.5}},
      // HMIS (the host's automatic splitting) hashes only where its first
      // pass leaves points to PMIS, which this problem's does not.
      {classical + "seed", {{pmis}, std::uint64_t(12345)}},
      {classical + "profile_stages", {{}, true}},
      {amg + "aggregation.strength_threshold", {{aggregation}, 0.1}},
      {amg + "aggregation.dimension", {{aggregation}, I(2)}},
      {amg + "aggregation.seed", {{aggregation}, std::uint64_t(12345)}},
      {amg + "aggregation.galerkin_by_spgemm", {{aggregation}, true}},
      // Block size 2 on the 2D problem: pairs of grid points as nodes,
      // whose 2x2 diagonal blocks the smoothers invert unless told not to.
      {"preconditioner.jacobi.point_block",
       {{sa, sa_blocks, {amg + "smoother", S("jacobi")}}, false}},
      {"preconditioner.l1jacobi.point_block",
       {{sa, sa_blocks, {amg + "smoother", S("l1jacobi")}}, false}},
      {"preconditioner.chebyshev.point_block", {{sa, sa_blocks}, false}},
      {amg + "smoothed_aggregation.block_size", {{sa}, I(2)}},
      {amg + "smoothed_aggregation.strength_threshold", {{sa}, 0.5}},
      {amg + "smoothed_aggregation.filter_weak",
       {{sa, {amg + "smoothed_aggregation.strength_threshold", 0.5}}, true}},
      {amg + "smoothed_aggregation.prolongator_damping", {{sa}, 1.0}},
      {amg + "smoothed_aggregation.smooth_prolongator", {{sa}, false}},
      {amg + "smoothed_aggregation.seed", {{sa}, std::uint64_t(12345)}},
      {amg + "smoothed_aggregation.resetup_keeps_prolongator", {{sa}, false}},
  };
}

TEST(ConfigBuild, ANearNullSpaceGoesToAggregationAndIsRefusedElsewhere) {
  const Executor exec = Executor::host();
  const auto A = share(gallery::poisson3d(exec, 10, 10, 10));
  const size_type n = A->rows();
  const auto ones = [&] {
    std::vector<Vector<double>> B;
    B.emplace_back(exec, n, 1.0);
    return B;
  };
  SolverConfig cfg;
  cfg.preconditioner.amg.coarsening = CoarseningType::aggregation;
  // B = ones is aggregation's default: the same cycle, bit for bit.
  const auto given = make_preconditioner<double>(cfg, A, ones());
  const auto implied = make_preconditioner<double>(cfg, A);
  Vector<double> b(exec, n, 1.0), x1(exec, n), x2(exec, n);
  b.values().host_view()[7] = 3.0;
  given->apply(b, x1);
  implied->apply(b, x2);
  EXPECT_EQ(x1.to_vector(), x2.to_vector());
  // Two vectors: two coarse unknowns per aggregate (fewer where one is too
  // small), so more coarse rows than with one.
  auto B = ones();
  B.emplace_back(exec, n);
  auto x = B[1].values().host_view();
  for (size_type i = 0; i < n; ++i) x[i] = static_cast<double>(i % 10);
  const auto two = make_preconditioner<double>(cfg, A, std::move(B));
  const auto rows_of = [](const LinearOperator<double>& M) {
    return dynamic_cast<const amg::Hierarchy<double>&>(M).summary().levels.at(1).rows;
  };
  EXPECT_GT(rows_of(*two), rows_of(*implied));
  EXPECT_LE(rows_of(*two), 2 * rows_of(*implied));
  // Classical AMG and the smoothers take none, and say so.
  EXPECT_NE(error_of([&] {
              make_preconditioner<double>(SolverConfig{}, A, ones());
            }).find("preconditioner.amg.coarsening is classical"),
            std::string::npos);
  SolverConfig jacobi;
  jacobi.preconditioner.type = PreconditionerType::jacobi;
  EXPECT_NE(error_of([&] {
              make_preconditioner<double>(jacobi, A, ones());
            }).find("preconditioner.type is jacobi"),
            std::string::npos);
}

// ------------------------------------------- blocked smoothed aggregation

TEST(ConfigSmoothedAggregation, ReadsTheShortNameAndChecksItsSettings) {
  // "sa" (and --amg sa, --coarsening sa) reads as smoothed_aggregation and
  // is written back in full, with the SA section round-tripping.
  const SolverConfig cfg = config_from_json(R"({"preconditioner": {"amg": {"coarsening": "sa",
      "smoothed_aggregation": {"block_size": 3, "strength_threshold": 0.08,
                               "prolongator_damping": 1.2, "smooth_prolongator": false}}}})");
  EXPECT_EQ(cfg.preconditioner.amg.coarsening, CoarseningType::smoothed_aggregation);
  const auto& sa = cfg.preconditioner.amg.smoothed_aggregation;
  EXPECT_EQ(sa.block_size, 3);
  EXPECT_EQ(sa.strength_threshold, 0.08);
  EXPECT_EQ(sa.prolongator_damping, 1.2);
  EXPECT_FALSE(sa.smooth_prolongator);
  const std::string text = config_to_json(cfg);
  EXPECT_NE(text.find("\"coarsening\": \"smoothed_aggregation\""), std::string::npos) << text;
  EXPECT_TRUE(same_settings(config_from_json(text), cfg));
  EXPECT_EQ(block_size(cfg), 3);
  // The block size counts only for smoothed aggregation.
  SolverConfig classical = cfg;
  classical.preconditioner.amg.coarsening = CoarseningType::classical;
  EXPECT_EQ(block_size(classical), 1);

  SolverConfig flags;
  flag(flags, "--coarsening", "preconditioner.amg.coarsening", "sa");
  flag(flags, "--block-size", "preconditioner.amg.smoothed_aggregation.block_size", "2");
  EXPECT_EQ(block_size(flags), 2);
  // Out of range, by the flag's name, the value and the range.
  EXPECT_EQ(error_of([&] {
              flag(flags, "--block-size", "preconditioner.amg.smoothed_aggregation.block_size",
                   "-1");
            }),
            "--block-size '-1': expected an integer in [0, 64]");
  EXPECT_EQ(error_of([] {
              config_from_json(R"({"preconditioner": {"amg": {"smoothed_aggregation":
                  {"prolongator_damping": 2}}}})");
            }),
            "config: 'preconditioner.amg.smoothed_aggregation.prolongator_damping' must be a "
            "number in (0, 2), got 2");
  EXPECT_NE(error_of([] {
              config_from_json(R"({"preconditioner": {"amg": {"coarsening": "sa2"}}})");
            }).find("classical, aggregation, smoothed_aggregation or sa"),
            std::string::npos);
  // SA settings under another coarsening change nothing, and say so.
  SolverConfig unused;
  flag(unused, "--block-size", "preconditioner.amg.smoothed_aggregation.block_size", "3");
  const auto lines = ineffective_settings(unused);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "--block-size has no effect: smoothed_aggregation coarsening settings; "
            "preconditioner.amg.coarsening is classical");
  // Its automatic smoother is Chebyshev with the chebyshev settings.
  SolverConfig cheb = cfg;
  cheb.preconditioner.chebyshev.degree = 3;
  ASSERT_TRUE(std::holds_alternative<ChebyshevParams>(amg_smoother(cheb)));
  EXPECT_EQ(std::get<ChebyshevParams>(amg_smoother(cheb)).degree, 3);
}

TEST(ConfigSmoothedAggregation, TheLevelOperatorIsBlockedOnceForBlockSizesAboveOne) {
  const Executor exec = Executor::host();
  const auto problem = gallery::elasticity3d(exec, 3);
  const auto A = share(CsrMatrix<double>(problem.A.clone()));
  SolverConfig cfg;
  EXPECT_EQ(level_operator<double>(cfg, A)->kind(), "CSR");
  cfg.preconditioner.amg.coarsening = CoarseningType::smoothed_aggregation;
  EXPECT_EQ(level_operator<double>(cfg, A)->kind(), "CSR");  // block size 0: from the operator
  cfg.preconditioner.amg.smoothed_aggregation.block_size = 3;
  const auto op = level_operator<double>(cfg, A);
  ASSERT_EQ(op->kind(), "BSR 3x3");
  // The same operator: y = A x equal to the CSR product.
  Vector<double> x(exec, A->rows()), y1(exec, A->rows()), y2(exec, A->rows());
  auto xv = x.values().host_view();
  for (size_type i = 0; i < A->rows(); ++i) xv[i] = std::sin(0.1 * double(i)) + 1.0;
  op->apply(x, y1);
  spmv(*A, x, y2);
  const auto a = y1.to_vector(), b = y2.to_vector();
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-12 * (1 + std::abs(b[i])));
  // A block size that does not divide the rows names the setting.
  cfg.preconditioner.amg.smoothed_aggregation.block_size = 5;
  EXPECT_EQ(error_of([&] { level_operator<double>(cfg, A); }),
            "config: preconditioner.amg.smoothed_aggregation.block_size 5 does not divide the " +
                std::to_string(A->rows()) + " x " + std::to_string(A->rows()) +
                " matrix; expected the number of unknowns per node (rows a multiple of it)");
}

TEST(ConfigSmoothedAggregation, TranslationsAreFoundMissingAndPutFirst) {
  const Executor exec = Executor::host();
  const auto problem = gallery::elasticity3d(exec, 2);
  const size_type n = problem.A.rows();
  std::vector<Vector<double>> all, rotations;
  for (const auto& v : problem.rigid_body_modes) all.push_back(v.clone());
  for (int m = 3; m < 6; ++m) rotations.push_back(problem.rigid_body_modes[m].clone());
  EXPECT_TRUE(missing_translations(all, 3).empty());
  EXPECT_EQ(missing_translations(rotations, 3), (std::vector<int>{0, 1, 2}));
  // Two of the three translations: the third (unknown z) is missing.
  std::vector<Vector<double>> two;
  two.push_back(problem.rigid_body_modes[0].clone());
  two.push_back(problem.rigid_body_modes[1].clone());
  EXPECT_EQ(missing_translations(two, 3), (std::vector<int>{2}));
  // A combination of the translations still spans them.
  std::vector<Vector<double>> mixed;
  mixed.push_back(problem.rigid_body_modes[0].clone());
  axpy(1.0, problem.rigid_body_modes[1], mixed[0]);
  mixed.push_back(problem.rigid_body_modes[1].clone());
  mixed.push_back(problem.rigid_body_modes[2].clone());
  EXPECT_TRUE(missing_translations(mixed, 3).empty());

  const auto completed = with_translations(std::move(rotations), n, 3, exec);
  ASSERT_EQ(completed.size(), 6u);
  for (int m = 0; m < 6; ++m) {
    EXPECT_EQ(completed[m].to_vector(), problem.rigid_body_modes[m].to_vector()) << "mode " << m;
  }
  EXPECT_TRUE(missing_translations(completed, 3).empty());
  EXPECT_NE(error_of([&] { with_translations<double>({}, 10, 3, exec); }).find("block size 3"),
            std::string::npos);
}

TEST(ConfigEffect, EveryDeclaredParameterChangesWhatRuns) {
  const auto table = changes();
  for (const auto& [path, change] : table) {
    EXPECT_NE(find_parameter(path), nullptr) << "not a declared parameter: " << path;
  }
  for (const auto& p : parameters()) {
    SCOPED_TRACE(p.path);
    const auto it = table.find(p.path);
    ASSERT_NE(it, table.end()) << "no change listed for " << p.path;
    SolverConfig before;
    for (const auto& [path, value] : it->second.context) set(before, path, value);
    ASSERT_NE(p.get(before), it->second.value) << "the change is the value already set";
    SolverConfig after = before;
    set_parameter(after, p, it->second.value, p.path);
    EXPECT_EQ(p.get(after), it->second.value);
    // The setting reached the objects that run, and changed what they did.
    EXPECT_NE(what_runs(before), what_runs(after));
  }
}

}  // namespace
}  // namespace strata::config
