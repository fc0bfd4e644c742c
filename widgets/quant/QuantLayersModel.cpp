// QuantLayersModel: the analysis and the plan as a table.
#include "quant/QuantLayersModel.h"

#include "numeric/NumericOverlay.h"
#include "quant/QuantOverlay.h"
#include "quant/QuantizationState.h"

#include <QBrush>
#include <QLocale>

namespace lattice::studio {

namespace {

QString toQ(const std::string& s) { return QString::fromStdString(s); }

} // namespace

QString humanSize(std::uint64_t bytes) {
  const QLocale locale;
  if (bytes < 1024) return QObject::tr("%1 B").arg(bytes);
  return locale.formattedDataSize(qint64(bytes), 2, QLocale::DataSizeTraditionalFormat);
}

QuantLayersModel::QuantLayersModel(QuantizationState* state, QObject* parent)
    : QAbstractTableModel(parent), m_state(state) {
  connect(state, &QuantizationState::analysisChanged, this, [this] {
    beginResetModel();
    endResetModel();
  });
  connect(state, &QuantizationState::planChanged, this, [this] {
    if (rowCount() > 0) Q_EMIT dataChanged(index(0, planColumn()), index(rowCount() - 1, planColumn()));
  });
}

int QuantLayersModel::candidateCount() const {
  return m_state->sensitivity() ? int(m_state->sensitivity()->candidates.size()) : 0;
}

int QuantLayersModel::bytesColumn(int candidate) const { return DenseColumn + 1 + candidate; }
int QuantLayersModel::errorColumn(int candidate) const { return DenseColumn + 1 + candidateCount() + candidate; }
int QuantLayersModel::planColumn() const { return DenseColumn + 1 + 2 * candidateCount(); }

int QuantLayersModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !m_state->sensitivity()) return 0;
  return int(m_state->sensitivity()->layers.size());
}

int QuantLayersModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : planColumn() + 1;
}

QVariant QuantLayersModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  const QuantSensitivity* s = m_state->sensitivity();
  const int n = candidateCount();
  if (role == Qt::ToolTipRole) {
    if (section > DenseColumn && section < bytesColumn(n))
      return tr("Weight bytes of the layer stored in this format");
    if (section >= errorColumn(0) && section < planColumn())
      return tr("Relative L2 error at the model's outputs with only this layer in this format, measured by the "
                "runtime (Pearson in the cell's tooltip)");
    if (section == planColumn()) return tr("The plan's format for the layer (double-click or right-click to change)");
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
  case LayerColumn:
    return tr("Layer");
  case NodeColumn:
    return tr("Node");
  case ParametersColumn:
    return tr("Parameters");
  case DenseColumn:
    return tr("Dense");
  default:
    break;
  }
  if (s && section < bytesColumn(n)) return toQ(s->candidates[std::size_t(section - bytesColumn(0))].name());
  if (s && section < planColumn())
    return tr("L2 %1").arg(toQ(s->candidates[std::size_t(section - errorColumn(0))].name()));
  if (section == planColumn()) return tr("Plan");
  return {};
}

QVariant QuantLayersModel::data(const QModelIndex& index, int role) const {
  const QuantSensitivity* s = m_state->sensitivity();
  if (!s || !index.isValid() || index.row() >= rowCount()) return {};
  const std::size_t row = std::size_t(index.row());
  const QuantLayer& layer = s->layers[row];
  const int col = index.column();
  const int n = candidateCount();
  const QLocale locale;
  if (col == LayerColumn || col == NodeColumn) {
    const QString text = toQ(col == LayerColumn ? layer.name : layer.node);
    if (role == Qt::DisplayRole || role == Qt::UserRole) return text;
    if (role == Qt::ToolTipRole)
      return tr("%1 (%2, node %3)%4")
          .arg(toQ(layer.name), toQ(layer.family), toQ(layer.node),
               layer.packable ? QString() : tr(": stays dense in every plan (not packable)"));
    return {};
  }
  if (col == ParametersColumn) {
    if (role == Qt::UserRole) return qlonglong(layer.parameters);
    if (role == Qt::DisplayRole) return locale.toString(qlonglong(layer.parameters));
    if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
  }
  if (col == DenseColumn) {
    if (role == Qt::UserRole) return qulonglong(layer.denseBytes);
    if (role == Qt::DisplayRole) return humanSize(layer.denseBytes);
    if (role == Qt::ToolTipRole) return tr("%1 bytes").arg(locale.toString(qulonglong(layer.denseBytes)));
    if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
  }
  if (col < planColumn()) {
    const bool bytes = col < bytesColumn(n);
    const std::size_t c = std::size_t(bytes ? col - bytesColumn(0) : col - errorColumn(0));
    const LayerCandidate& cand = s->perLayer[row][c];
    if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
    if (bytes) {
      if (!layer.packable) return role == Qt::DisplayRole ? QVariant(QStringLiteral("—")) : QVariant();
      if (role == Qt::UserRole) return qulonglong(cand.bytes);
      if (role == Qt::DisplayRole) return humanSize(cand.bytes);
      if (role == Qt::ToolTipRole) return tr("%1 bytes").arg(locale.toString(qulonglong(cand.bytes)));
      return {};
    }
    if (!cand.measured) return role == Qt::DisplayRole ? QVariant(QStringLiteral("—")) : QVariant();
    if (role == Qt::UserRole) return cand.error.relL2;
    if (role == PearsonRole) return cand.error.pearson;
    if (role == Qt::DisplayRole) return formatFigure(cand.error.relL2);
    if (role == Qt::ToolTipRole)
      return tr("%1 as %2 alone: rel. L2 %3, Pearson %4 at the outputs")
          .arg(toQ(layer.name), toQ(cand.format.name()), QString::number(cand.error.relL2, 'g', 6),
               QString::number(cand.error.pearson, 'g', 8));
    return {};
  }
  const WeightFormat& format = m_state->formats()[row];
  if (role == Qt::DisplayRole || role == Qt::EditRole || role == Qt::UserRole) return toQ(format.name());
  if (role == Qt::DecorationRole) return quantFormatColor(format);
  if (role == Qt::ToolTipRole)
    return layer.packable ? tr("Double-click or right-click to choose the format of %1").arg(toQ(layer.name))
                          : tr("%1 stays dense (not packable)").arg(toQ(layer.name));
  return {};
}

Qt::ItemFlags QuantLayersModel::flags(const QModelIndex& index) const {
  Qt::ItemFlags f = QAbstractTableModel::flags(index);
  const QuantSensitivity* s = m_state->sensitivity();
  if (s && index.isValid() && index.column() == planColumn() && s->layers[std::size_t(index.row())].packable)
    f |= Qt::ItemIsEditable;
  return f;
}

bool QuantLayersModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (role != Qt::EditRole || index.column() != planColumn() || !m_state->sensitivity()) return false;
  const std::string name = value.toString().toStdString();
  for (const WeightFormat& f : m_state->choicesFor(index.row()))
    if (f.name() == name) {
      m_state->setLayerFormat(index.row(), f);
      return true;
    }
  return false;
}

} // namespace lattice::studio
