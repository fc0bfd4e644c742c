// lattice-cli: the headless front end of Lattice Studio.
#include "CliArgs.h"
#include "Commands.h"

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace {

const char* const kUsage = R"(usage: lattice-cli <command> [options]

commands:
  trace MODEL [--format fx|tabular|json] [--leaf PATH]... [--expand PATH]... [WEIGHTS]
        trace MODEL into one flat FX graph and print it
  info MODEL [WEIGHTS]
        modules, leaves, parameters and bytes, node counts by op
  save-example NAME DIR
        write a built-in example as an .ltfx archive
  lower MODEL -o DIR [--input NAME:sparse:DTYPE:CHANNELS[:SX,SY,SZ]]...
        [--input NAME:dense:TENSOR_TYPE]... [--batch-size N] [--input-dtype f32|f16]
        [--quantize 4|8] [--group-size N] [--scale-dtype f16|f32] [--keep-dense PATTERN]...
        [--quantize-plan PLAN.json]
        [--output-name NAME]... [--no-validate] [--force] [WEIGHTS]
        lower MODEL to a lattice artifact (graph.mlir + weights.safetensors); the
        archive's example inputs and lowering options are the defaults. DIR is
        replaced only when it is empty or holds just an artifact; --force replaces
        a folder with other files in it (they are deleted). --quantize-plan gives
        each conv and linear layer its own format (dense, int8, int4; group size,
        scale dtype) from a JSON plan; --keep-dense keeps the layers a module path
        or glob ('stem.*') names dense on top of --quantize
  validate PATH...
        check an artifact directory (graph.mlir + weights.safetensors) or a lone
        .mlir against every lattice dialect rule; diagnostics are printed as
        file:line:col: error: message, exit code 1 when any path is invalid
  diff A B [--json] [--no-values] [--tolerance X]
        structural and weight diff of two artifacts (directories or lone .mlir):
        ops matched by name, then along the data flow; attributes, types, ABI and
        weights (int4/int8 dequantized); exit code 0 equal, 1 different, 2 error
  diff A B (--inputs IN | --random-inputs N[:SEED]) [--tolerance X] [--json] [--exact]
        numeric diff: both run on the same inputs; every matched op's output
        divergence from A (max |d|, relative L2, Pearson) in data-flow order, the
        first op whose relative L2 exceeds X (default 0.001) and the outputs

  run ARTIFACT (--inputs IN.safetensors | --random-inputs N[:SEED] [--batch-size B]
        [--save-inputs FILE]) [-o OUT.safetensors] [--exact] [--threads N] [--profile]
        [--values FILE.safetensors]
        execute an artifact on the CPU runtime; outputs are named as expected.safetensors
        names them (a sparse output as NAME.coords, NAME.features, NAME.active);
        --values also writes every op's result by SSA name, --profile prints per-op
        time, rows and GFLOP/s; --exact accumulates in f64. ARTIFACT may also be a
        MODEL (with the options of lower): it is lowered in memory, nothing written
  check ARTIFACT --inputs IN --expected EXP [--rtol R] [--atol A] [--exact]
        run and compare with expected outputs (sparse rows Morton-sorted): one line per
        output with max |d|, max relative d and the worst row; exit code 0 within
        tolerance, 1 outside, 2 usage or unreadable input
  check MODEL.ltfx [--inputs IN] [--tolerance T] [--json]
        an archive exported with --record-activations: run its artifact (lowered in
        memory) on the recorded inputs and compare every FX node's value with what
        PyTorch recorded, in data-flow order (relative L2 over T, default 1e-4, marks
        a node); names the first divergent node; exit 0 when none diverges
  quant-plan MODEL [--inputs IN | --random-inputs N[:SEED]] [--candidates int4,int8]
        [--group-sizes 32,64,128] [--budget REL_L2 | --max-bytes N] [-o PLAN.json] [--json]
        each conv and linear layer's measured sensitivity (relative L2 error at the outputs
        with only that layer quantized), the smallest plan within the budget (its error
        measured, default 1e-2) and the Pareto front; -o writes it for lower --quantize-plan

MODEL is an .ltfx directory, a TorchScript archive (.pt, .pth) or example:sparse_resnet21d,
example:sparse_resunet42, example:chain:N. A TorchScript archive is read by LibTorch's own
loader, which is not hardened against crafted files: open only .pt files you trust.
WEIGHTS is --weights FILE [--allow-partial]: replace MODEL's weights from a .safetensors file or
a torch.save'd state_dict; a checkpoint with missing, unexpected or mismatched keys is refused
unless --allow-partial (then the matching tensors are applied and the rest reported).

exit codes: 0 ok, 1 bad input, 2 usage
)";

} // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kUsage;
    return lattice::cli::ExitUsage;
  }
  const std::string command = args.front();
  args.erase(args.begin());
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return lattice::cli::ExitOk;
  }
  if (command == "--version") {
    std::cout << "lattice-cli 0.1.0\n";
    return lattice::cli::ExitOk;
  }
  if (command == "trace") return lattice::cli::runTrace(args);
  if (command == "info") return lattice::cli::runInfo(args);
  if (command == "save-example") return lattice::cli::runSaveExample(args);
  if (command == "lower") return lattice::cli::runLower(args);
  if (command == "validate") return lattice::cli::runValidate(args);
  if (command == "diff") return lattice::cli::runDiff(args);
  if (command == "run") return lattice::cli::runRun(args);
  if (command == "check") return lattice::cli::runCheck(args);
  if (command == "quant-plan") return lattice::cli::runQuantPlan(args);
  std::cerr << "lattice-cli: unknown command '" << command << "'\n\n" << kUsage;
  return lattice::cli::ExitUsage;
}
