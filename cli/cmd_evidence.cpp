// kopt evidence FILE: a workload's system-level evidence from an Nsight Systems SQLite export
// or a PyTorch-profiler trace — kernels vs copies vs idle gaps vs host API time, and the
// kernels worth handing to the loop.
#include <iostream>

#include "command.hpp"
#include "kopt/core/files.hpp"
#include "kopt/system/system_trace.hpp"

namespace kopt::cli {
namespace {

struct EvidenceConfig {
  std::string file;
  std::string out;
  bool json = false;
};

}  // namespace

Command evidence_command() {
  return {"evidence",
          "Where a traced workload's time went (nsys SQLite export or PyTorch-profiler trace), and which kernels to optimize",
          [](CLI::App& app) {
            auto config = std::make_shared<EvidenceConfig>();
            app.add_option("FILE", config->file, "An nsys export (nsys export --type sqlite) or a PyTorch profiler's "
                                                 "export_chrome_trace JSON")->required();
            app.add_option("--out", config->out, "Also write the evidence (kopt.system_evidence/1) to this file");
            app.add_flag("--json", config->json, "Print the evidence as one JSON document");
            return [config] {
              const nlohmann::json evidence =
                  system::system_evidence(system::read_system_trace(config->file), system::load_evidence_rules());
              if (!config->out.empty()) write_file_atomic(config->out, evidence.dump(2) + "\n");
              std::cout << (config->json ? evidence.dump(2) + "\n" : system::format_system_evidence(evidence));
              return 0;
            };
          }};
}

}  // namespace kopt::cli
