// ChannelFlow: the runtime's shape rules that depend only on the artifact. The runtime learns a
// value's channel count when it runs (sparse.make takes its features' width, a convolution its
// weight's output channels, ...) and refuses a weight that does not fit it; the artifact alone
// already decides every such count that starts from a static input type, so the verifier follows
// the same rules and reports, at the op and with the runtime's message, what the runtime would
// refuse: a conv weight's C_in against x.channels (validation spec sec. 8 X8), a bias against
// the output channels, norm vectors against their input, a linear weight against its input's
// width, binary operands against each other (X14). A count the graph leaves open but takes from
// an argument is a need of that argument (what the first constraining op requires of it).

#include "verify/VerifyWeightsSupport.h"

#include <string_view>

namespace lattice {
namespace detail {
namespace {

std::optional<std::int64_t> lastStaticDim(const ArtifactType& type) {
  if (!type.isRankedTensor() || type.shape.empty() || type.shape.back() < 0) return std::nullopt;
  return type.shape.back();
}

// Operand index of schema operand `name` in `op` (optional operands are the trailing ones), or
// npos when absent.
std::size_t operandIndex(const ArtifactOp& op, std::string_view name) {
  std::size_t index = 0;
  for (const SchemaOperand& o : op.schema->operands) {
    if (o.kind != SchemaOperandKind::Ssa) continue;
    if (index >= op.operands.size()) break;
    if (o.name == name) return index;
    ++index;
  }
  return std::string::npos;
}

std::string count(std::int64_t n) {
  return std::to_string(n);
}

} // namespace

std::string weightKeyText(const std::string& key) {
  return "'" + printableForMessage(key) + "'";
}

ChannelFlow::ChannelFlow(const ArtifactFunction& function,
                         std::function<void(const ArtifactOp&, const std::string&)> report,
                         std::function<void(const ArgumentChannelNeed&)> need)
    : m_report(std::move(report)), m_need(std::move(need)), m_needed(function.arguments.size(), false) {
  // Arguments: a tensor's static width is what binding enforces (X19 checks static extents); an
  // open one, and a sparse argument's, is the argument's own.
  for (std::size_t i = 0; i < function.arguments.size(); ++i) {
    const ArtifactValueDef& arg = function.arguments[i];
    ChannelCount c;
    if (arg.type.isRankedTensor() && arg.type.tensorRank() == 2) c.count = lastStaticDim(arg.type);
    if (!c.count) c.source = static_cast<int>(i);
    m_channels[arg.name] = c;
  }
}

ChannelCount ChannelFlow::of(const ArtifactOp& op, std::size_t operand) const {
  if (operand >= op.operands.size()) return {};
  const auto it = m_channels.find(op.operands[operand].name);
  return it == m_channels.end() ? ChannelCount{} : it->second;
}

void ChannelFlow::require(const ArtifactOp& op, const ChannelCount& value, std::int64_t required,
                          const std::string& message, const std::string& weightKey) {
  if (value.count) {
    if (*value.count != required) m_report(op, message);
    return;
  }
  if (value.source < 0 || !m_need || m_needed[static_cast<std::size_t>(value.source)]) return;
  m_needed[static_cast<std::size_t>(value.source)] = true;
  ArgumentChannelNeed need;
  need.argument = static_cast<std::size_t>(value.source);
  need.channels = required;
  need.op = op.name;
  need.loc = op.loc;
  need.result = op.results.empty() ? std::string() : op.results.front().name;
  need.weightKey = weightKey;
  m_need(need);
}

void ChannelFlow::visit(const ArtifactOp& op, const std::unordered_map<std::string, WeightInfo>& weights) {
  if (!op.schema || op.results.empty()) return;
  const OpKind kind = op.kind;
  const auto weight = [&](std::string_view operand) -> const WeightInfo* {
    const std::size_t i = operandIndex(op, operand);
    if (i == std::string::npos) return nullptr;
    const auto it = weights.find(op.operands[i].name);
    return it == weights.end() ? nullptr : &it->second;
  };
  // A per-channel vector (bias, scale, mean, var) against the channels of `side` ("output" for
  // a bias, "input" for the norms), as the runtime's vectorWeight checks it: "<what> channels
  // must match output channels."
  const auto perChannel = [&](const char* what, const ChannelCount& channels, const char* side) {
    const WeightInfo* w = weight(what);
    if (!w || w->quantized || w->denseShape.size() != 1) return;
    const std::int64_t c = w->denseShape[0];
    require(op, channels, c,
            std::string(what) + " channels must match output channels: " + what + " " + weightKeyText(w->key) +
                " has " + count(c) + " channels, the " + side + " has " +
                (channels.count ? count(*channels.count) : "?"),
            w->key);
  };

  ChannelCount out = of(op, 0);
  if (kind == OpKind::SparseMake || kind == OpKind::SparseWithFeatures || kind == OpKind::Voxelize ||
      kind == OpKind::Devoxelize) {
    out = of(op, 1);
  } else if (kind == OpKind::SparseCat) {
    const ChannelCount l = of(op, 0), r = of(op, 1);
    out = {};
    if (l.count && r.count) out.count = *l.count + *r.count;
  } else if (kind == OpKind::SparseBinary) {
    const ChannelCount l = of(op, 0), r = of(op, 1);
    if (l.count && r.count && *l.count != *r.count)
      m_report(op, "sparse binary operands must have matching channels: lhs has " + count(*l.count) +
                       ", rhs has " + count(*r.count));
    // One side open, from an argument: that argument must match the other side.
    const std::string words = "sparse binary operands must have matching channels";
    if (!l.count && r.count) {
      require(op, l, *r.count, words, "");
      out = r;
    } else if (l.count && !r.count) {
      require(op, r, *l.count, words, "");
    }
  } else if (isConv(kind)) {
    const ChannelCount x = of(op, 0);
    out = {};
    if (const WeightInfo* w = weight("weight")) {
      if (!w->quantized && w->denseShape.size() == 5) {
        const std::int64_t cin = w->denseShape[4];
        require(op, x, cin,
                "weight input channels must match x.channels: weight " + weightKeyText(w->key) + " has " +
                    count(cin) + " input channels, x has " + (x.count ? count(*x.count) : "?"),
                w->key);
      } else if (w->quantized && w->storageChannels && x.count && *x.count > *w->storageChannels) {
        m_report(op, "weight input channels must match x.channels: x has " + count(*x.count) +
                         " channels, more than the " + count(*w->storageChannels) + " storage channels of " +
                         weightKeyText(w->key));
      }
      out.count = w->outChannels;
    }
    perChannel("bias", out, "output");
  } else if (kind == OpKind::Linear) {
    const ChannelCount x = of(op, 0);
    out = {};
    if (const WeightInfo* w = weight("weight")) {
      if (!w->quantized && w->denseShape.size() == 2) {
        const std::int64_t cin = w->denseShape[1];
        require(op, x, cin,
                "linear weight input channels " + count(cin) + " do not match the input's " +
                    (x.count ? count(*x.count) : "?") + ": weight " + weightKeyText(w->key) + " is " +
                    shapeText(w->denseShape),
                w->key);
      } else if (w->quantized && w->storageChannels && x.count && *x.count > *w->storageChannels) {
        m_report(op, "linear weight input channels do not match the input's " + count(*x.count) + ": " +
                         weightKeyText(w->key) + " stores " + count(*w->storageChannels) + " channels");
      }
      out.count = w->outChannels;
    }
    perChannel("bias", out, "output");
  } else if (kind == OpKind::EmbeddingLookup) {
    out = {};
    if (const WeightInfo* w = weight("weight"); w && w->denseShape.size() == 2) out.count = w->denseShape[1];
  } else if (isNorm(kind)) {
    for (const char* what : {"scale", "bias", "mean", "var"}) perChannel(what, out, "input");
  }
  // sparse.decompose: its features result has the input's channels (its other results none).
  if (kind == OpKind::SparseDecompose) {
    if (op.results.size() > 1) m_channels[op.results[1].name] = out;
    return;
  }
  m_channels[op.results.front().name] = out;
}

} // namespace detail

std::vector<ArgumentChannelNeed> argumentChannelNeeds(const ArtifactGraph& graph, const WeightLookup& weights) {
  std::vector<ArgumentChannelNeed> needs;
  const ArtifactFunction* f = graph.entry();
  if (!f) return needs;
  std::vector<Diagnostic> ignored;
  detail::DiagnosticSink sink(graph.fileName, ignored);
  detail::ChannelFlow flow(
      *f, [](const ArtifactOp&, const std::string&) {}, [&](const ArgumentChannelNeed& n) { needs.push_back(n); });
  std::unordered_map<std::string, detail::WeightInfo> bySsa;
  for (const ArtifactOp& op : f->ops) {
    if (op.schema && op.schema->assembly == SchemaAssembly::Weight) {
      if (std::optional<detail::WeightInfo> info = detail::describeWeightOp(op, weights, sink))
        bySsa[op.results[0].name] = std::move(*info);
    } else {
      flow.visit(op, bySsa);
    }
  }
  return needs;
}

} // namespace lattice
