// ValueTableModel: adapts StudioSession::executedNodes() and the prepared lowering's interpreter
// environment to a table. Values are read on demand from env() (nothing is copied); the model
// only keeps row → node name/pointer. It never steps the interpreter itself.

#include "panels/ValueTableModel.h"

#include "StudioSession.h"
#include "lowering/ArtifactValue.h"
#include "fx/Graph.h"
#include "graph/NodeStyle.h"

#include <QBrush>
#include <QFont>

namespace lattice::studio {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

QColor tint(QColor c) {
  c.setAlpha(70);
  return c;
}

} // namespace

ValueTableModel::ValueTableModel(StudioSession* session, QObject* parent)
    : QAbstractTableModel(parent), m_session(session) {
  connect(session, &StudioSession::interpreterReset, this, &ValueTableModel::reset);
  connect(session, &StudioSession::modelLoaded, this, &ValueTableModel::reset);
  connect(session, &StudioSession::interpreterStepped, this, &ValueTableModel::sync);
  connect(session, &StudioSession::interpreterFinished, this, &ValueTableModel::sync);
  connect(session, &StudioSession::interpreterFailed, this, &ValueTableModel::sync);
  connect(session, &StudioSession::breakpointsChanged, this, &ValueTableModel::onBreakpointsChanged);
  reset();
}

QString ValueTableModel::pendingNode() const {
  switch (m_session->interpreterState()) {
  case StudioSession::InterpreterState::Paused:
    return m_session->currentNode();
  case StudioSession::InterpreterState::Failed:
    return m_session->failedNode();
  default:
    return {};
  }
}

const fx::Node* ValueTableModel::loweringNode(const QString& name) const {
  const PreparedLowering* lowering = m_session->lowering();
  if (!lowering || !lowering->graph) return nullptr;
  return lowering->graph->findNode(name.toStdString());
}

void ValueTableModel::reset() {
  beginResetModel();
  m_names.clear();
  m_nodes.clear();
  m_executed = 0;
  m_pendingFailed = false;
  endResetModel();
  sync();
}

void ValueTableModel::sync() {
  const QStringList& executed = m_session->executedNodes();
  if (static_cast<std::size_t>(executed.size()) < m_executed) { // only a reset shrinks the list
    reset();
    return;
  }
  // Rows before m_executed are settled; from there on: the newly executed nodes, then the
  // pending one (a run signals once per slice: this touches only the slice's rows).
  const int firstChanged = static_cast<int>(m_executed);
  QStringList tail = executed.mid(firstChanged);
  if (const QString pending = pendingNode(); !pending.isEmpty()) tail << pending;

  const int oldCount = m_names.size();
  const int newCount = firstChanged + tail.size();
  const int common = std::min(oldCount, newCount);
  if (newCount < oldCount) {
    beginRemoveRows({}, newCount, oldCount - 1);
    m_names.erase(m_names.begin() + newCount, m_names.end());
    m_nodes.resize(static_cast<std::size_t>(newCount));
    endRemoveRows();
  }
  for (int row = firstChanged; row < common; ++row) {
    m_names[row] = tail[row - firstChanged];
    m_nodes[static_cast<std::size_t>(row)] = loweringNode(m_names[row]);
  }
  m_executed = static_cast<std::size_t>(executed.size());
  const bool failed = m_session->interpreterState() == StudioSession::InterpreterState::Failed;
  const bool failedChanged = failed != m_pendingFailed;
  m_pendingFailed = failed;
  if (newCount > oldCount) {
    beginInsertRows({}, oldCount, newCount - 1);
    m_names.reserve(newCount);
    for (int row = oldCount; row < newCount; ++row) {
      m_names << tail[row - firstChanged];
      m_nodes.push_back(loweringNode(m_names.constLast()));
    }
    endInsertRows();
  }
  const int lastChanged = failedChanged ? newCount - 1 : common - 1;
  if (firstChanged <= lastChanged && lastChanged >= 0)
    Q_EMIT dataChanged(index(firstChanged, 0), index(lastChanged, ColumnCount - 1));
}

void ValueTableModel::onBreakpointsChanged() {
  if (m_names.isEmpty()) return;
  Q_EMIT dataChanged(index(0, BreakpointColumn), index(m_names.size() - 1, BreakpointColumn),
                     {Qt::CheckStateRole});
}

int ValueTableModel::rowOfNode(const QString& nodeName) const {
  // Executed nodes run once, so the name is unique among the rows except for the pending row.
  for (int row = m_names.size() - 1; row >= 0; --row)
    if (m_names[row] == nodeName) return row;
  return -1;
}

const fx::Value* ValueTableModel::valueOf(int row) const {
  if (row < 0 || static_cast<std::size_t>(row) >= m_executed) return nullptr;
  const PreparedLowering* lowering = m_session->lowering();
  const fx::Node* node = m_nodes[static_cast<std::size_t>(row)];
  if (!lowering || !lowering->interpreter || !node) return nullptr;
  return lowering->interpreter->valueOf(node);
}

int ValueTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : m_names.size();
}

int ValueTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ValueTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= m_names.size()) return {};
  const int row = index.row();
  const QString& name = m_names[row];
  const bool isPending = static_cast<std::size_t>(row) >= m_executed;

  if (role == NodeNameRole) return name;
  if (role == IsCurrentRole) return isPending;
  if (role == Qt::CheckStateRole) {
    if (index.column() != BreakpointColumn) return {};
    return m_session->breakpoints().contains(name) ? Qt::Checked : Qt::Unchecked;
  }
  if (role == Qt::BackgroundRole) {
    if (!isPending) return {};
    return QBrush(tint(m_pendingFailed ? palette::failed() : palette::current()));
  }
  if (role == Qt::FontRole && isPending) {
    QFont font;
    font.setBold(true);
    return font;
  }
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};

  if (isPending) {
    switch (index.column()) {
    case StepColumn:
      return m_pendingFailed ? QStringLiteral("\u2716") : QStringLiteral("\u25B6");
    case NodeColumn:
      return name;
    case KindColumn:
      if (m_pendingFailed) return QStringLiteral("error");
      return role == Qt::ToolTipRole ? QVariant(QStringLiteral("runs next")) : QVariant();
    case TypeColumn:
      if (!m_pendingFailed) return {};
      return role == Qt::ToolTipRole ? m_session->lastError()
                                     : m_session->lastError().section(QLatin1Char('\n'), 0, 0);
    default:
      return {};
    }
  }

  switch (index.column()) {
  case StepColumn:
    return row + 1;
  case NodeColumn: {
    if (role == Qt::ToolTipRole) {
      const fx::Node* node = m_nodes[static_cast<std::size_t>(row)];
      return node ? qs(node->format()) : name;
    }
    return name;
  }
  case BreakpointColumn:
    return {};
  default:
    break;
  }
  const fx::Value* value = valueOf(row);
  if (!value) return {};
  const ValueSummary s = summarizeValue(*value);
  if (role == Qt::ToolTipRole) return valueToolTip(s); // reads like the row
  switch (index.column()) {
  case KindColumn:
    return s.kind;
  case ChannelsColumn:
    return s.channels;
  case DTypeColumn:
    return s.dtype;
  case SsaColumn:
    return s.ssa;
  case TypeColumn:
    return s.type;
  default:
    return {};
  }
}

bool ValueTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || index.column() != BreakpointColumn || role != Qt::CheckStateRole) return false;
  const QString& name = m_names[index.row()];
  const bool want = static_cast<Qt::CheckState>(value.toInt()) == Qt::Checked;
  if (want != m_session->breakpoints().contains(name)) m_session->toggleBreakpoint(name);
  return true;
}

Qt::ItemFlags ValueTableModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  if (index.column() == BreakpointColumn) f |= Qt::ItemIsUserCheckable;
  return f;
}

QVariant ValueTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole && section == BreakpointColumn) return QStringLiteral("breakpoint");
  if (role != Qt::DisplayRole) return {};
  switch (section) {
  case BreakpointColumn:
    return QStringLiteral("\u25CF");
  case StepColumn:
    return QStringLiteral("#");
  case NodeColumn:
    return QStringLiteral("Node");
  case KindColumn:
    return valueFieldTitle(ValueField::Kind);
  case ChannelsColumn:
    return valueFieldTitle(ValueField::Channels);
  case DTypeColumn:
    return valueFieldTitle(ValueField::DType);
  case SsaColumn:
    return valueFieldTitle(ValueField::Ssa);
  case TypeColumn:
    return valueFieldTitle(ValueField::Type);
  default:
    return {};
  }
}

} // namespace lattice::studio
