// DiagnosticsModel: collects the session's error signals into rows; no error is produced here.

#include "panels/DiagnosticsModel.h"

#include "StudioSession.h"
#include "numeric/NumericRun.h"

#include <QBrush>

namespace lattice::studio {

DiagnosticsModel::DiagnosticsModel(StudioSession* session, QObject* parent) : QAbstractTableModel(parent) {
  using Source = Diagnostic::Source;
  connect(session, &StudioSession::modelLoadStarted, this, &DiagnosticsModel::clear);
  connect(session, &StudioSession::modelLoadFailed, this, [this](const QString& message) {
    add({Source::Load, QString(), message});
  });
  connect(session, &StudioSession::traceFailed, this, [this](const QString& message) {
    removeSource(Source::Trace);
    add({Source::Trace, QString(), message});
  });
  connect(session, &StudioSession::graphChanged, this, [this] { removeSource(Source::Trace); });
  connect(session, &StudioSession::interpreterReset, this, [this] { removeSource(Source::Interpreter); });
  connect(session, &StudioSession::interpreterFailed, this,
          [this](const QString& node, const QString& message) {
            removeSource(Source::Interpreter);
            add({Source::Interpreter, node, message});
          });
  // A panel created after an error still shows it.
  if (session->interpreterState() == StudioSession::InterpreterState::Failed)
    m_items.push_back({Source::Interpreter, session->failedNode(), session->lastError()});
}

void DiagnosticsModel::watchRun(NumericRun* run) {
  using Source = Diagnostic::Source;
  connect(run, &NumericRun::failed, this, [this, run](const QString& node, const QString& message) {
    removeSource(Source::Run);
    if (run->wasCancelled()) return; // the user's cancel is not an error
    add({Source::Run, node, message});
  });
  connect(run, &NumericRun::stateChanged, this, [this](NumericRun::State state) {
    if (state != NumericRun::State::Failed) removeSource(Source::Run);
  });
  if (run->state() == NumericRun::State::Failed && !run->wasCancelled())
    add({Source::Run, run->failedNode(), run->lastError()});
}

void DiagnosticsModel::add(Diagnostic diagnostic) {
  beginInsertRows({}, m_items.size(), m_items.size());
  m_items.push_back(std::move(diagnostic));
  endInsertRows();
}

void DiagnosticsModel::clear() {
  if (m_items.isEmpty()) return;
  beginResetModel();
  m_items.clear();
  endResetModel();
}

void DiagnosticsModel::removeSource(Diagnostic::Source source) {
  for (int row = m_items.size() - 1; row >= 0; --row) {
    if (m_items[row].source != source) continue;
    beginRemoveRows({}, row, row);
    m_items.removeAt(row);
    endRemoveRows();
  }
}

int DiagnosticsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : m_items.size();
}

int DiagnosticsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiagnosticsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= m_items.size()) return {};
  const Diagnostic& d = m_items[index.row()];
  switch (role) {
  case NodeNameRole:
    return d.node;
  case Qt::DisplayRole:
    if (index.column() == NodeColumn) {
      if (!d.node.isEmpty()) return d.node;
      switch (d.source) {
      case Diagnostic::Source::Load:
        return QStringLiteral("(load)");
      case Diagnostic::Source::Trace:
        return QStringLiteral("(trace)");
      case Diagnostic::Source::Interpreter:
        return QStringLiteral("(lowering)");
      case Diagnostic::Source::Run:
        return QStringLiteral("(run)");
      }
      return {};
    }
    return index.column() == MessageColumn ? d.message.section(QLatin1Char('\n'), 0, 0) : QVariant();
  case Qt::ToolTipRole:
    return d.message;
  case Qt::ForegroundRole:
    return index.column() == MessageColumn ? QVariant(QBrush(QColor(0xb7, 0x1c, 0x1c))) : QVariant();
  default:
    return {};
  }
}

QVariant DiagnosticsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  if (section == NodeColumn) return QStringLiteral("Node");
  if (section == MessageColumn) return QStringLiteral("Message");
  return {};
}

} // namespace lattice::studio
