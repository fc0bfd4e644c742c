// DiffListModel: rows flattened from an ArtifactDiff once, texts built then (the diff is
// immutable while shown).

#include "artifactview/DiffListModel.h"

#include "artifactview/ArtifactStyle.h"

namespace lattice::studio {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

DiffStatus statusOfChange(const FieldChange& c) {
  if (!c.presentBefore) return DiffStatus::Added;
  if (!c.presentAfter) return DiffStatus::Removed;
  return DiffStatus::Changed;
}

QString shapeText(const std::vector<std::int64_t>& shape) {
  QStringList dims;
  for (std::int64_t d : shape)
    dims << QString::number(d);
  return QLatin1Char('[') + dims.join(QStringLiteral(", ")) + QLatin1Char(']');
}

} // namespace

DiffListModel::DiffListModel(QObject* parent) : QAbstractTableModel(parent) {}

QString DiffListModel::changeText(const FieldChange& c) {
  const QString before = c.presentBefore ? qs(c.before) : tr("(absent)");
  const QString after = c.presentAfter ? qs(c.after) : tr("(absent)");
  return QStringLiteral("%1: %2 → %3").arg(qs(c.field), before, after);
}

QString DiffListModel::opText(const OpDiff& op) {
  auto named = [](const std::string& n) { return n.empty() ? QString() : QLatin1Char('%') + qs(n); };
  QString name;
  if (op.status == DiffStatus::Added)
    name = named(op.nameB);
  else if (op.status == DiffStatus::Removed || op.nameA == op.nameB)
    name = named(op.nameA);
  else
    name = named(op.nameA) + QStringLiteral(" → ") + named(op.nameB);
  return qs(op.opName) + QLatin1Char(' ') + name;
}

QString DiffListModel::weightText(const WeightDiff& w) {
  QStringList parts;
  if (w.status == DiffStatus::Added) parts << qs(w.formB);
  if (w.status == DiffStatus::Removed) parts << qs(w.formA);
  if (w.status == DiffStatus::Changed && (w.formChanged || w.formA != w.formB))
    parts << qs(w.formA) + QStringLiteral(" → ") + qs(w.formB);
  if (w.status == DiffStatus::Changed && w.shapeA != w.shapeB)
    parts << tr("shape %1 → %2").arg(shapeText(w.shapeA), shapeText(w.shapeB));
  if (w.values && w.values->changedElements > 0)
    parts << tr("max |Δ| %1, max rel %2, %3/%4 changed")
                 .arg(QString::number(w.values->maxAbsDelta, 'g', 4),
                      QString::number(w.values->maxRelDelta, 'g', 4))
                 .arg(w.values->changedElements)
                 .arg(w.values->elements);
  if (!w.note.empty()) parts << qs(w.note);
  return parts.join(QStringLiteral("; "));
}

void DiffListModel::setDiff(std::shared_ptr<const ArtifactDiff> diff) {
  beginResetModel();
  m_diff = std::move(diff);
  m_rows.clear();
  if (m_diff) {
    for (std::size_t i = 0; i < m_diff->moduleAttributes.size(); ++i) {
      const FieldChange& c = m_diff->moduleAttributes[i];
      m_rows.push_back({Kind::ModuleAttribute, statusOfChange(c), int(i), qs(c.field), changeText(c)});
    }
    for (std::size_t i = 0; i < m_diff->abi.size(); ++i) {
      const FieldChange& c = m_diff->abi[i];
      m_rows.push_back({Kind::Abi, statusOfChange(c), int(i), qs(c.field), changeText(c)});
    }
    for (std::size_t i = 0; i < m_diff->ops.size(); ++i) {
      const OpDiff& op = m_diff->ops[i];
      if (op.status == DiffStatus::Unchanged) continue;
      QStringList changes;
      for (const FieldChange& c : op.changes)
        changes << changeText(c);
      m_rows.push_back({Kind::Op, op.status, int(i), opText(op), changes.join(QStringLiteral("; "))});
    }
    for (std::size_t i = 0; i < m_diff->weights.size(); ++i) {
      const WeightDiff& w = m_diff->weights[i];
      if (w.status == DiffStatus::Unchanged) continue;
      m_rows.push_back({Kind::Weight, w.status, int(i), qs(w.key), weightText(w)});
    }
  }
  endResetModel();
}

int DiffListModel::rowOfOp(int opIndex) const {
  for (int r = 0; r < m_rows.size(); ++r)
    if (m_rows[r].kind == Kind::Op && m_rows[r].index == opIndex) return r;
  return -1;
}

int DiffListModel::rowOfWeight(const QString& key) const {
  for (int r = 0; r < m_rows.size(); ++r)
    if (m_rows[r].kind == Kind::Weight && m_rows[r].name == key) return r;
  return -1;
}

int DiffListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : m_rows.size();
}

int DiffListModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiffListModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const Row& row = m_rows[index.row()];
  switch (role) {
  case KindRole:
    return static_cast<int>(row.kind);
  case IndexRole:
    return row.index;
  case StatusRole:
    return static_cast<int>(row.status);
  case Qt::ToolTipRole:
    return index.column() == DetailColumn ? row.detail : QVariant();
  case Qt::DecorationRole:
    return index.column() == StatusColumn ? QVariant(statusStyle(row.status).border) : QVariant();
  case Qt::DisplayRole:
    switch (index.column()) {
    case KindColumn:
      switch (row.kind) {
      case Kind::ModuleAttribute:
        return tr("module");
      case Kind::Abi:
        return tr("ABI");
      case Kind::Op:
        return tr("op");
      case Kind::Weight:
        return tr("weight");
      }
      return {};
    case StatusColumn:
      return QString::fromLatin1(diffStatusName(row.status));
    case NameColumn:
      return row.name;
    case DetailColumn:
      return row.detail;
    default:
      return {};
    }
  default:
    return {};
  }
}

QVariant DiffListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
  case KindColumn:
    return tr("Kind");
  case StatusColumn:
    return tr("Status");
  case NameColumn:
    return tr("Name");
  case DetailColumn:
    return tr("Details");
  default:
    return {};
  }
}

} // namespace lattice::studio
