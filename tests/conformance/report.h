// The conformance report: operator x check, pass / FAIL / skip with its reason / not
// applicable, written as Markdown when the suite ends (conformance-report.md in the working
// directory, or $TG_CONFORMANCE_REPORT).
#pragma once

#include <string>
#include <vector>

namespace tg::conformance {

struct PlannedCheck {
  enum Status { Run, Skip, NotApplicable };
  std::string check;
  Status status = Run;
  std::string reason;  // why it is skipped (from the schema) or does not apply
};

struct PlannedOperator {
  int order = 0;     // declaration order across all schema files
  std::string name;  // "add.Tensor"
  std::vector<PlannedCheck> checks;
};

// Called by the generated tests at static initialisation, one call per overload.
bool plan(PlannedOperator op);

// The check names, in report column order.
const std::vector<std::string>& check_names();

// Where the report goes (else $TG_CONFORMANCE_REPORT, else ./conformance-report.md).
void set_report_path(std::string path);

// Why the cpu_cuda cases did not run in this process, or empty when they did.
void set_cuda_skip_reason(std::string reason);

}  // namespace tg::conformance
