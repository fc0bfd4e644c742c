// BreakpointsModel: rows are the session's breakpoints sorted by the node's position in the
// graph (nodes no longer in it last, by name); cells are read from the graph on demand.

#include "panels/BreakpointsModel.h"

#include "StudioSession.h"
#include "fx/Graph.h"
#include "model/Model.h"

#include <QFont>

#include <algorithm>
#include <cstdint>
#include <utility>

namespace lattice::studio {

namespace {

/// The module a node belongs to (as the graph groups it): the module whose forward calls a
/// call_module or made an inlined call, the owner of an attribute; "" for the root.
QString moduleOf(const fx::Node& node) {
  const QString target = QString::fromStdString(node.target());
  switch (node.op()) {
  case fx::Op::CallModule:
  case fx::Op::GetAttr:
    return target.section(QLatin1Char('.'), 0, -2);
  case fx::Op::CallFunction:
  case fx::Op::CallMethod: {
    const auto it = node.meta.find(fx::kModulePathMeta);
    return it == node.meta.end() ? QString() : QString::fromStdString(it->second);
  }
  case fx::Op::Placeholder:
  case fx::Op::Output:
    break;
  }
  return {};
}

QString displayModule(const QString& path) {
  return path.isEmpty() ? BreakpointsModel::tr("(root)") : path;
}

/// "call_function operator.add"; a module call leads with its class ("SubmConv3d (call_module
/// 1.1.main.3)").
QString operationOf(const fx::Node& node, const Model* model) {
  const std::string_view name = fx::opName(node.op());
  const QString op = QString::fromUtf8(name.data(), static_cast<int>(name.size()));
  const QString text = node.target().empty() ? op : QStringLiteral("%1 %2").arg(op, QString::fromStdString(node.target()));
  const ModuleInfo* module = node.op() == fx::Op::CallModule && model ? model->module(node.target()) : nullptr;
  if (!module) return text;
  const QString type = QString::fromStdString(module->type).section(QLatin1Char('.'), -1);
  return QStringLiteral("%1 (%2)").arg(type, text);
}

} // namespace

BreakpointsModel::BreakpointsModel(StudioSession* session, QObject* parent)
    : QAbstractTableModel(parent), m_session(session) {
  for (auto signal : {&StudioSession::breakpointsChanged, &StudioSession::graphChanged, &StudioSession::modelLoaded})
    connect(session, signal, this, &BreakpointsModel::refresh);
  connect(session, &StudioSession::traceFailed, this, &BreakpointsModel::refresh);
  for (auto signal : {&StudioSession::interpreterReset, &StudioSession::interpreterFinished})
    connect(session, signal, this, &BreakpointsModel::updateCurrent);
  connect(session, &StudioSession::interpreterStepped, this, &BreakpointsModel::updateCurrent);
  connect(session, &StudioSession::interpreterFailed, this, &BreakpointsModel::updateCurrent);
  connect(session, &StudioSession::runningChanged, this, &BreakpointsModel::updateCurrent);
  m_rows = sortedBreakpoints();
}

QStringList BreakpointsModel::sortedBreakpoints() const {
  const fx::Graph* graph = m_session->graph();
  std::vector<std::pair<std::size_t, QString>> keyed;
  for (const QString& node : m_session->breakpoints()) {
    const fx::Node* n = graph ? graph->findNode(node.toStdString()) : nullptr;
    keyed.push_back({n ? n->index() : SIZE_MAX, node});
  }
  std::sort(keyed.begin(), keyed.end());
  QStringList out;
  for (const auto& [index, node] : keyed)
    out << node;
  return out;
}

void BreakpointsModel::refresh() {
  QStringList rows = sortedBreakpoints();
  if (rows != m_rows) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
  } else if (!m_rows.isEmpty()) {
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
  }
  updateCurrent();
}

void BreakpointsModel::updateCurrent() {
  const bool paused = m_session->interpreterState() == StudioSession::InterpreterState::Paused && !m_session->isRunning();
  const QString current = paused && m_session->breakpoints().contains(m_session->currentNode())
                              ? m_session->currentNode()
                              : QString();
  if (current == m_current) return;
  const QString previous = std::exchange(m_current, current);
  for (const QString& node : {previous, current}) {
    const int row = rowOf(node);
    if (row >= 0) Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1), {Qt::FontRole});
  }
}

int BreakpointsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int BreakpointsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant BreakpointsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const QString& name = m_rows[index.row()];
  if (role == NodeNameRole) return name;
  if (role == Qt::CheckStateRole && index.column() == NodeColumn)
    return static_cast<int>(m_session->isBreakpointEnabled(name) ? Qt::Checked : Qt::Unchecked);
  if (role == Qt::FontRole && name == m_current) {
    QFont font;
    font.setBold(true);
    return font;
  }
  const fx::Graph* graph = m_session->graph();
  const fx::Node* node = graph ? graph->findNode(name.toStdString()) : nullptr;
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
    case NodeColumn:
      return name;
    case OperationColumn:
      return node ? operationOf(*node, m_session->model()) : tr("(not in the graph)");
    case ModuleColumn:
      return node ? displayModule(moduleOf(*node)) : QString();
    default:
      return {};
    }
  }
  if (role == Qt::ToolTipRole) {
    QStringList lines{name};
    if (node) {
      lines << operationOf(*node, m_session->model());
      lines << tr("in module: %1").arg(displayModule(moduleOf(*node)));
    }
    lines << (m_session->isBreakpointEnabled(name) ? tr("enabled: a run stops before this node")
                                                   : tr("disabled: runs go past this node"));
    if (name == m_current) lines << tr("the interpreter is paused here");
    return lines.join(QLatin1Char('\n'));
  }
  return {};
}

bool BreakpointsModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return false;
  if (role != Qt::CheckStateRole || index.column() != NodeColumn) return false;
  const bool enabled = value.toInt() == Qt::Checked;
  m_session->setBreakpointEnabled(m_rows[index.row()], enabled); // breakpointsChanged refreshes the row
  return m_session->isBreakpointEnabled(m_rows[index.row()]) == enabled;
}

Qt::ItemFlags BreakpointsModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
  if (index.column() == NodeColumn) f |= Qt::ItemIsUserCheckable;
  return f;
}

QVariant BreakpointsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
  case NodeColumn:
    return tr("Node");
  case OperationColumn:
    return tr("Operation");
  case ModuleColumn:
    return tr("Module");
  default:
    return {};
  }
}

} // namespace lattice::studio
