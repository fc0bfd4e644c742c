// ArtifactDiagnosticsModel: a thin table over the verifier's Diagnostic list.

#include "artifactview/ArtifactDiagnosticsModel.h"

#include "graph/NodeStyle.h"

#include <QFileInfo>

namespace lattice::studio {

ArtifactDiagnosticsModel::ArtifactDiagnosticsModel(QObject* parent) : QAbstractTableModel(parent) {}

void ArtifactDiagnosticsModel::setDiagnostics(std::vector<Diagnostic> diagnostics) {
  beginResetModel();
  m_items = std::move(diagnostics);
  endResetModel();
}

int ArtifactDiagnosticsModel::errorCount() const {
  int n = 0;
  for (const Diagnostic& d : m_items)
    if (d.severity == Severity::Error) ++n;
  return n;
}

int ArtifactDiagnosticsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_items.size());
}

int ArtifactDiagnosticsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ArtifactDiagnosticsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const Diagnostic& d = m_items[static_cast<std::size_t>(index.row())];
  if (role == LineRole) return static_cast<int>(d.loc.line);
  if (role == Qt::ToolTipRole) return QString::fromStdString(d.str());
  if (role == Qt::ForegroundRole && index.column() == SeverityColumn && d.severity == Severity::Error)
    return palette::failed();
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
  case LocationColumn: {
    const QString file = QFileInfo(QString::fromStdString(d.file)).fileName();
    if (!d.loc.valid()) return file;
    return QStringLiteral("%1:%2:%3").arg(file).arg(d.loc.line).arg(d.loc.column);
  }
  case SeverityColumn:
    return d.severity == Severity::Error ? tr("error") : tr("note");
  case MessageColumn:
    return QString::fromStdString(d.message);
  default:
    return {};
  }
}

QVariant ArtifactDiagnosticsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
  case LocationColumn:
    return tr("Location");
  case SeverityColumn:
    return tr("Severity");
  case MessageColumn:
    return tr("Message");
  default:
    return {};
  }
}

} // namespace lattice::studio
