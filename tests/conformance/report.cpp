#include "report.h"

#include "functorch/transforms.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>

namespace tg::conformance {

namespace {

std::vector<PlannedOperator>& planned() {
  static std::vector<PlannedOperator> ops;
  return ops;
}

std::string& report_path() {
  static std::string path;
  return path;
}

std::string& cuda_skip_reason() {
  static std::string reason;
  return reason;
}

enum class Result { Pass, Fail };

// "add.Tensor: gradcheck" -> {"add.Tensor", "gradcheck"}.
std::pair<std::string, std::string> split_case_name(const std::string& name) {
  const size_t colon = name.rfind(": ");
  if (colon == std::string::npos) return {name, ""};
  return {name.substr(0, colon), name.substr(colon + 2)};
}

void write_report(const std::map<std::pair<std::string, std::string>, Result>& results) {
  const char* env = std::getenv("TG_CONFORMANCE_REPORT");
  const std::string path = !report_path().empty() ? report_path() : env && *env ? env : "conformance-report.md";
  std::vector<PlannedOperator> ops = planned();
  std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.order < b.order; });

  int passed = 0, failed = 0, skipped = 0, not_run = 0, not_applicable = 0;
  std::vector<std::string> skips;                          // "op, check: reason"
  std::map<std::string, std::vector<std::string>> reasons;  // not applicable: reason -> ops
  std::string table = "| operator |";
  for (const std::string& check : check_names()) table += " " + check + " |";
  table += "\n|---|";
  for (size_t i = 0; i < check_names().size(); ++i) table += "---|";
  table += "\n";
  for (const PlannedOperator& op : ops) {
    table += "| `" + op.name + "` |";
    for (const std::string& check : check_names()) {
      auto planned_check = std::find_if(op.checks.begin(), op.checks.end(), [&](const auto& c) { return c.check == check; });
      std::string cell = "—";
      if (planned_check == op.checks.end()) {
        ++not_applicable;
      } else if (planned_check->status == PlannedCheck::NotApplicable) {
        ++not_applicable;
        reasons[check + ": " + planned_check->reason].push_back(op.name);
      } else if (planned_check->status == PlannedCheck::Skip) {
        ++skipped;
        cell = "skip";
        skips.push_back("`" + op.name + "` " + check + ": " + planned_check->reason);
      } else if (auto found = results.find({op.name, check}); found != results.end()) {
        const bool ok = found->second == Result::Pass;
        ++(ok ? passed : failed);
        cell = ok ? "pass" : "**FAIL**";
      } else if (check == "cpu_cuda" && !cuda_skip_reason().empty()) {
        ++skipped;
        cell = "skip";
      } else {
        ++not_run;
        cell = "not run";
      }
      table += " " + cell + " |";
    }
    table += "\n";
  }

  std::ofstream out(path);
  out << "# Conformance report\n\n"
      << "Written by the build and by `meson test --suite conformance` (docs/conformance.md says how to read it).\n"
      << ops.size() << " overloads: " << passed << " checks passed, " << failed << " failed, " << skipped
      << " skipped, " << not_run << " not run in this invocation, " << not_applicable << " not applicable.\n\n"
      << "`pass` and `**FAIL**` are this run's results; `skip` has its reason below; `—` means the check does not "
         "apply to the overload (reasons below); `not run` means the run was filtered.\n\n"
      << table;
  // See Note [Counted fallback] in docs/transforms.md.
  const auto fallbacks = func::vmap_fallbacks();
  out << "\nvmap loop fallbacks in this run (the vmap checks that ran): " << func::vmap_fallback_count();
  for (size_t i = 0; i < fallbacks.size(); ++i) {
    out << (i == 0 ? " (" : ", ") << "`" << fallbacks[i].first << "` " << fallbacks[i].second;
  }
  out << (fallbacks.empty() ? "" : ")") << "\n";
  out << "\n## Skipped\n\n";
  if (!cuda_skip_reason().empty()) out << "- every `cpu_cuda` check: " << cuda_skip_reason() << "\n";
  for (const std::string& line : skips) out << "- " << line << "\n";
  out << "\n## Not applicable\n\n";
  for (const auto& [reason, names] : reasons) {
    out << "- " << reason << ": ";
    for (size_t i = 0; i < names.size(); ++i) out << (i ? ", " : "") << "`" << names[i] << "`";
    out << "\n";
  }
  std::printf("conformance report: %s (%d passed, %d failed, %d skipped)\n", path.c_str(), passed, failed, skipped);
}

// Records each case's outcome and writes the report when the run ends.
class ReportListener : public doctest::IReporter {
 public:
  explicit ReportListener(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override { write_report(results_); }
  void test_case_start(const doctest::TestCaseData& data) override { current_ = split_case_name(data.m_name); }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats& stats) override {
    const bool ok = stats.testCaseSuccess && stats.failure_flags == 0;
    Result& slot = results_.try_emplace(current_, Result::Pass).first->second;
    if (!ok) slot = Result::Fail;
  }
  void test_case_exception(const doctest::TestCaseException&) override { results_[current_] = Result::Fail; }
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}

 private:
  std::pair<std::string, std::string> current_;
  std::map<std::pair<std::string, std::string>, Result> results_;
};

REGISTER_LISTENER("conformance_report", 1, ReportListener);

}  // namespace

bool plan(PlannedOperator op) {
  planned().push_back(std::move(op));
  return true;
}

const std::vector<std::string>& check_names() {
  static const std::vector<std::string> names = {"registration", "boxed",    "variants",      "out",
                                                 "noncontiguous", "dtypes",  "reference",     "gradcheck",
                                                 "gradgradcheck", "forward_ad", "fwd_bwd_consistency", "vmap",
                                                 "cpu_cuda",      "errors"};
  return names;
}

void set_report_path(std::string path) { report_path() = std::move(path); }

void set_cuda_skip_reason(std::string reason) { cuda_skip_reason() = std::move(reason); }

}  // namespace tg::conformance
