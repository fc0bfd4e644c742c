// The model commands of lattice-cli: trace, info, save-example; and --weights (shared with lower).
#include "CliArgs.h"
#include "Commands.h"

#include "fx/JsonEncoding.h"
#include "model/Archive.h"
#include "model/torchscript/Checkpoint.h"
#include "model/LoadModel.h"
#include "trace/Tracer.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace lattice::cli {

int fail(int code, const std::string& message) {
  std::cerr << "lattice-cli: " << message << '\n';
  return code;
}

int applyWeights(const ParsedArgs& parsed, Model& model) {
  const bool allowPartial = parsed.has("allow-partial");
  if (parsed.values("weights").empty())
    return allowPartial ? fail(ExitUsage, "--allow-partial needs --weights FILE") : ExitOk;
  auto report = loadWeights(model, parsed.value("weights"), CheckpointOptions{allowPartial});
  if (!report)
    return fail(ExitBadInput,
                report.message() + (allowPartial ? "" : " (--allow-partial applies the tensors that match)"));
  for (const CheckpointIssue& issue : report->issues)
    std::cerr << "lattice-cli: warning: " << report->source << ": " << issue.message << '\n';
  return ExitOk;
}

namespace {

/// "21721472" -> "21,721,472".
std::string grouped(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

int usageError(const std::string& command, const std::string& error) {
  std::cerr << "lattice-cli " << command << ": " << error << "\n(see 'lattice-cli --help')\n";
  return ExitUsage;
}

struct Traced {
  Model model;
  std::unique_ptr<fx::Graph> graph;
};

/// Loads MODEL and traces it with the lattice policy plus the --leaf/--expand overrides.
int loadAndTrace(const ParsedArgs& parsed, Traced& out) {
  auto model = loadModel(parsed.positional[0]);
  if (!model) return fail(ExitBadInput, model.message());
  if (int code = applyWeights(parsed, *model)) return code;
  LatticeTracer tracer;
  for (const std::string& path : parsed.values("leaf")) {
    if (!model->module(path)) return fail(ExitBadInput, "--leaf: no module at path '" + path + "'");
    tracer.setLeafOverride(path, true);
  }
  for (const std::string& path : parsed.values("expand")) {
    if (!model->module(path)) return fail(ExitBadInput, "--expand: no module at path '" + path + "'");
    tracer.setLeafOverride(path, false);
  }
  auto graph = tracer.trace(*model);
  if (!graph) return fail(ExitBadInput, parsed.positional[0] + ": " + graph.message());
  out.model = std::move(*model);
  out.graph = std::move(*graph);
  return ExitOk;
}

} // namespace

int runTrace(const std::vector<std::string>& args) {
  CommandSpec spec;
  spec.flags = {"allow-partial"};
  spec.options = {"format", "leaf", "expand", "weights"};
  spec.minPositional = spec.maxPositional = 1;
  ParsedArgs parsed;
  std::string error;
  if (!parseArgs(args, spec, parsed, error)) return usageError("trace", error);
  const std::string format = parsed.value("format", "fx");
  if (format != "fx" && format != "tabular" && format != "json")
    return usageError("trace", "--format must be fx, tabular or json, not '" + format + "'");

  Traced traced;
  if (int code = loadAndTrace(parsed, traced)) return code;
  if (format == "fx")
    std::cout << traced.graph->print();
  else if (format == "tabular")
    std::cout << traced.graph->printTabular();
  else
    std::cout << fx::dumpJson(fx::graphToJson(*traced.graph), 2) << '\n';
  return ExitOk;
}

int runInfo(const std::vector<std::string>& args) {
  CommandSpec spec;
  spec.flags = {"allow-partial"};
  spec.options = {"leaf", "expand", "weights"};
  spec.minPositional = spec.maxPositional = 1;
  ParsedArgs parsed;
  std::string error;
  if (!parseArgs(args, spec, parsed, error)) return usageError("info", error);

  Traced traced;
  if (int code = loadAndTrace(parsed, traced)) return code;
  const Model& model = traced.model;

  uint64_t paramTensors = 0, paramElements = 0, paramBytes = 0;
  uint64_t bufferTensors = 0, bufferElements = 0, bufferBytes = 0;
  auto count = [&](const auto& records, uint64_t& tensors, uint64_t& elements, uint64_t& bytes) {
    for (const auto& [name, record] : records) {
      if (!record) continue;
      const TensorData* t = model.tensor(record->key);
      if (!t) continue;
      ++tensors;
      elements += static_cast<uint64_t>(t->numel());
      bytes += t->byteSize();
    }
  };
  for (const ModuleInfo& m : model.modules()) {
    count(m.parameters, paramTensors, paramElements, paramBytes);
    count(m.buffers, bufferTensors, bufferElements, bufferBytes);
  }

  std::map<std::string, int> nodesByOp;
  std::map<std::string, int> leavesByType;
  std::set<std::string> leafPaths;
  for (const fx::Node& node : traced.graph->nodes()) {
    ++nodesByOp[std::string(fx::opName(node.op()))];
    if (node.op() == fx::Op::CallModule && leafPaths.insert(node.target()).second) {
      if (const ModuleInfo* m = model.module(node.target())) ++leavesByType[m->type];
    }
  }
  int withLowering = 0;
  for (const std::string& path : leafPaths)
    if (const ModuleInfo* m = model.module(path); m && hasLatticeLowering(*m)) ++withLowering;

  std::cout << "model:       " << parsed.positional[0] << " (" << model.root().type << ")\n";
  std::cout << "modules:     " << model.modules().size() << " (" << leafPaths.size() << " leaves, "
            << withLowering << " with a lattice lowering)\n";
  std::cout << "parameters:  " << grouped(paramElements) << " elements in " << paramTensors
            << " tensors, " << grouped(paramBytes) << " bytes\n";
  std::cout << "buffers:     " << grouped(bufferElements) << " elements in " << bufferTensors
            << " tensors, " << grouped(bufferBytes) << " bytes\n";
  std::cout << "nodes:       " << traced.graph->size();
  const char* order[] = {"placeholder", "get_attr", "call_module", "call_function", "call_method", "output"};
  std::string sep = " (";
  for (const char* op : order) {
    auto it = nodesByOp.find(op);
    if (it == nodesByOp.end()) continue;
    std::cout << sep << op << ' ' << it->second;
    sep = ", ";
  }
  std::cout << ")\n";
  std::cout << "leaf types:\n";
  for (const auto& [type, n] : leavesByType) std::cout << "  " << n << "  " << type << '\n';
  return ExitOk;
}

int runSaveExample(const std::vector<std::string>& args) {
  CommandSpec spec;
  spec.minPositional = spec.maxPositional = 2;
  ParsedArgs parsed;
  std::string error;
  if (!parseArgs(args, spec, parsed, error)) return usageError("save-example", error);
  std::string name = parsed.positional[0];
  if (name.rfind("example:", 0) != 0) name = "example:" + name;
  auto model = loadModel(name);
  if (!model) return fail(ExitBadInput, model.message());
  Status written = writeArchive(*model, parsed.positional[1]);
  if (!written) return fail(ExitBadInput, written.message());
  std::cout << "wrote " << parsed.positional[1] << " (" << model->modules().size() << " modules, "
            << grouped(model->weightBytes()) << " weight bytes)\n";
  return ExitOk;
}

} // namespace lattice::cli
