// ArtifactOpGraph: nodes, edges, labels and line spans from a parsed graph.mlir. Values are
// resolved by name within the entry function only (the contract has one function and one
// block); it does not check types or dominance, which is the verifier's business.

#include "artifactview/ArtifactOpGraph.h"

#include <algorithm>
#include <unordered_map>

namespace lattice::studio {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

OpCategory categoryOf(const ArtifactOp& op) {
  const OpKind kind = op.kind;
  if (isWeightOp(kind)) return OpCategory::Weight;
  if (isConv(kind) || kind == OpKind::Linear || kind == OpKind::EmbeddingLookup) return OpCategory::Compute;
  if (isSparseStructureOp(kind) || isPointOp(kind)) return OpCategory::Structure;
  return OpCategory::Other;
}

void extend(int& last, const SourceLoc& loc) {
  if (loc.valid()) last = std::max(last, static_cast<int>(loc.line));
}

/// The last line an op's text reaches: the latest location recorded anywhere in it.
int lastLineOf(const ArtifactOp& op) {
  int last = static_cast<int>(op.loc.line);
  extend(last, op.nameLoc);
  extend(last, op.symbolLoc);
  for (const ArtifactValueDef& r : op.results) {
    extend(last, r.loc);
    extend(last, r.type.loc);
  }
  for (const ArtifactValueUse& u : op.operands)
    extend(last, u.loc);
  for (const ArtifactType& t : op.operandTypes)
    extend(last, t.loc);
  for (const ArtifactAttribute& a : op.attributes) {
    extend(last, a.loc);
    extend(last, a.value.loc);
  }
  return last;
}

QString opTitle(const ArtifactOp& op) {
  if (op.results.empty()) return op.hasSymbol ? QLatin1Char('@') + qs(op.symbol) : qs(op.name);
  QString title = QLatin1Char('%') + qs(op.results.front().name);
  if (op.results.size() > 1) title += QStringLiteral(" (+%1)").arg(op.results.size() - 1);
  return title;
}

QString opTooltip(const ArtifactOp& op) {
  QStringList lines;
  lines << qs(op.name) + (op.hasSymbol ? QStringLiteral(" @") + qs(op.symbol) : QString());
  for (const ArtifactValueDef& r : op.results)
    lines << QStringLiteral("%") + qs(r.name) + QStringLiteral(" : ") + qs(r.type.str());
  for (const ArtifactAttribute& a : op.attributes)
    lines << qs(a.name) + QStringLiteral(" = ") + qs(a.value.str());
  return lines.join(QLatin1Char('\n'));
}

} // namespace

ArtifactOpGraph::ArtifactOpGraph(const ArtifactGraph& graph) {
  const ArtifactFunction* fn = graph.entry();
  if (!fn) return;
  m_arguments = static_cast<int>(fn->arguments.size());
  m_nodes.reserve(fn->arguments.size() + fn->ops.size());
  std::unordered_map<std::string, int> definedBy; // SSA name → node
  definedBy.reserve(fn->arguments.size() + fn->ops.size() * 2);
  std::unordered_map<std::string, bool> returnedNames;
  for (const ArtifactValueUse& use : fn->ret.operands)
    returnedNames.emplace(use.name, true);

  for (std::size_t i = 0; i < fn->arguments.size(); ++i) {
    const ArtifactValueDef& arg = fn->arguments[i];
    OpGraphNode node;
    node.category = OpCategory::Argument;
    node.index = static_cast<int>(i);
    node.title = QLatin1Char('%') + qs(arg.name);
    node.subtitle = qs(arg.type.str());
    node.tooltip = QStringLiteral("argument %1: %2").arg(node.title, node.subtitle);
    node.returned = returnedNames.count(arg.name) != 0;
    node.firstLine = static_cast<int>(arg.loc.line);
    node.lastLine = std::max(node.firstLine, static_cast<int>(arg.type.loc.line));
    definedBy[arg.name] = static_cast<int>(m_nodes.size());
    m_nodes.push_back(std::move(node));
  }

  for (std::size_t i = 0; i < fn->ops.size(); ++i) {
    const ArtifactOp& op = fn->ops[i];
    const int self = static_cast<int>(m_nodes.size());
    OpGraphNode node;
    node.category = categoryOf(op);
    node.index = static_cast<int>(i);
    node.title = opTitle(op);
    node.subtitle = qs(std::string(op.shortName()));
    node.tooltip = opTooltip(op);
    // An op's text starts at its first result (the op itself is located at its name).
    node.firstLine = static_cast<int>(op.results.empty() ? op.loc.line : op.results.front().loc.line);
    node.lastLine = lastLineOf(op);
    for (std::size_t k = 0; k < op.operands.size(); ++k) {
      const auto producer = definedBy.find(op.operands[k].name);
      if (producer != definedBy.end()) m_edges.push_back({producer->second, self, static_cast<int>(k)});
    }
    for (const ArtifactValueDef& r : op.results) {
      definedBy[r.name] = self;
      if (returnedNames.count(r.name)) node.returned = true;
    }
    if (node.category == OpCategory::Weight)
      if (const ArtifactAttribute* key = op.attribute("storage_key"); key && key->value.isString())
        m_storageKeys.emplace_back(key->value.text, self);
    m_nodes.push_back(std::move(node));
  }

  m_in.resize(m_nodes.size());
  m_out.resize(m_nodes.size());
  for (std::size_t e = 0; e < m_edges.size(); ++e) {
    m_out[static_cast<std::size_t>(m_edges[e].from)].push_back(static_cast<int>(e));
    m_in[static_cast<std::size_t>(m_edges[e].to)].push_back(static_cast<int>(e));
  }
  m_lineIndex.reserve(m_nodes.size());
  for (std::size_t n = 0; n < m_nodes.size(); ++n)
    if (m_nodes[n].firstLine > 0) m_lineIndex.emplace_back(m_nodes[n].firstLine, static_cast<int>(n));
  std::sort(m_lineIndex.begin(), m_lineIndex.end());
  std::sort(m_storageKeys.begin(), m_storageKeys.end());
}

int ArtifactOpGraph::nodeOfArgument(int argument) const {
  return argument >= 0 && argument < m_arguments ? argument : -1;
}

int ArtifactOpGraph::nodeOfOp(int op) const {
  return op >= 0 && op < opCount() ? m_arguments + op : -1;
}

int ArtifactOpGraph::nodeAtLine(int line) const {
  // The last node starting at or before `line`, if its span reaches it.
  auto it = std::upper_bound(m_lineIndex.begin(), m_lineIndex.end(), std::make_pair(line, INT32_MAX));
  while (it != m_lineIndex.begin()) {
    --it;
    const OpGraphNode& node = m_nodes[static_cast<std::size_t>(it->second)];
    if (line <= node.lastLine) return it->second;
    if (it->first < line) break; // spans do not nest: an earlier start cannot reach further
  }
  return -1;
}

std::vector<int> ArtifactOpGraph::producers(int node) const {
  std::vector<int> out;
  if (node < 0 || node >= static_cast<int>(m_in.size())) return out;
  for (int e : m_in[static_cast<std::size_t>(node)])
    out.push_back(m_edges[static_cast<std::size_t>(e)].from);
  return out;
}

std::vector<int> ArtifactOpGraph::consumers(int node) const {
  std::vector<int> out;
  if (node < 0 || node >= static_cast<int>(m_out.size())) return out;
  for (int e : m_out[static_cast<std::size_t>(node)])
    out.push_back(m_edges[static_cast<std::size_t>(e)].to);
  return out;
}

std::vector<int> ArtifactOpGraph::search(const QString& text) const {
  std::vector<int> hits;
  const QString needle = text.trimmed();
  if (needle.isEmpty()) return hits;
  for (std::size_t n = 0; n < m_nodes.size(); ++n) {
    const OpGraphNode& node = m_nodes[n];
    if (node.title.contains(needle, Qt::CaseInsensitive) ||
        node.subtitle.contains(needle, Qt::CaseInsensitive) ||
        node.tooltip.contains(needle, Qt::CaseInsensitive))
      hits.push_back(static_cast<int>(n));
  }
  return hits;
}

int ArtifactOpGraph::nodeOfStorageKey(const std::string& key) const {
  auto it = std::lower_bound(m_storageKeys.begin(), m_storageKeys.end(), std::make_pair(key, INT32_MIN));
  return it != m_storageKeys.end() && it->first == key ? it->second : -1;
}

} // namespace lattice::studio
