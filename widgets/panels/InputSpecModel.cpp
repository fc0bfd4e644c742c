// InputSpecModel: edits a vector of InputSpec in place. It checks each value's form (kinds,
// dtypes, positive channels and strides, a `tensor<...>` type); whether the ABI fits the model
// is resolveExport's job when the export runs.

#include "panels/InputSpecModel.h"

#include "artifact/ArtifactValue.h"

#include <QRegularExpression>

namespace lattice::studio {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

bool isSparse(const InputSpec& spec) {
  return spec.kind == InputSpec::Kind::Sparse;
}

} // namespace

QString strideText(const std::array<int64_t, 3>& stride) {
  return QStringLiteral("%1, %2, %3").arg(stride[0]).arg(stride[1]).arg(stride[2]);
}

bool parseStride(const QString& text, std::array<int64_t, 3>& out) {
  const QStringList parts = text.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts);
  if (parts.size() != 1 && parts.size() != 3) return false;
  std::array<int64_t, 3> values{};
  for (int i = 0; i < 3; ++i) {
    bool ok = false;
    const qlonglong v = parts[parts.size() == 1 ? 0 : i].toLongLong(&ok);
    if (!ok || v <= 0) return false;
    values[static_cast<std::size_t>(i)] = v;
  }
  out = values;
  return true;
}

InputSpecModel::InputSpecModel(QObject* parent) : QAbstractTableModel(parent) {}

void InputSpecModel::setSpecs(std::vector<InputSpec> specs) {
  beginResetModel();
  m_specs = std::move(specs);
  endResetModel();
}

QStringList InputSpecModel::choices(int column) {
  if (column == KindColumn) return {QStringLiteral("sparse"), QStringLiteral("dense")};
  if (column == DTypeColumn) return {QStringLiteral("f32"), QStringLiteral("f16")};
  return {};
}

int InputSpecModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_specs.size());
}

int InputSpecModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant InputSpecModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  if (role != Qt::DisplayRole && role != Qt::EditRole && role != Qt::ToolTipRole) return {};
  const InputSpec& spec = m_specs[static_cast<std::size_t>(index.row())];
  const bool sparse = isSparse(spec);
  switch (index.column()) {
  case NameColumn:
    return qs(spec.name);
  case KindColumn:
    return sparse ? QStringLiteral("sparse") : QStringLiteral("dense");
  case DTypeColumn:
    if (sparse) return spec.dtype.empty() ? QStringLiteral("f32") : qs(spec.dtype);
    return qs(elementTypeOf(spec.type)); // dense: the type's element type (edit the type)
  case ChannelsColumn:
    return spec.channels ? QString::number(*spec.channels) : QStringLiteral("?");
  case StrideColumn:
    return sparse ? strideText(spec.stride) : QString();
  case TypeColumn:
    return sparse ? QString() : qs(spec.type);
  default:
    return {};
  }
}

bool InputSpecModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || role != Qt::EditRole || !(flags(index) & Qt::ItemIsEditable)) return false;
  InputSpec& spec = m_specs[static_cast<std::size_t>(index.row())];
  const QString text = value.toString().trimmed();
  switch (index.column()) {
  case KindColumn: {
    if (!choices(KindColumn).contains(text)) return false;
    const bool sparse = text == QStringLiteral("sparse");
    if (sparse == isSparse(spec)) return true;
    if (sparse) {
      const std::string element = elementTypeOf(spec.type);
      spec.kind = InputSpec::Kind::Sparse;
      spec.dtype = element == "f16" ? "f16" : "f32";
      spec.stride = {1, 1, 1};
      spec.type.clear();
    } else {
      spec.kind = InputSpec::Kind::Dense;
      const std::string channels = spec.channels ? std::to_string(*spec.channels) : std::string("?");
      spec.type = "tensor<?x" + channels + "x" + (spec.dtype.empty() ? std::string("f32") : spec.dtype) + ">";
      spec.dtype.clear();
    }
    Q_EMIT dataChanged(index.siblingAtColumn(0), index.siblingAtColumn(ColumnCount - 1));
    return true;
  }
  case DTypeColumn:
    if (!choices(DTypeColumn).contains(text)) return false;
    spec.dtype = text.toStdString();
    break;
  case ChannelsColumn: {
    if (text.isEmpty() || text == QStringLiteral("?")) {
      spec.channels.reset();
      break;
    }
    bool ok = false;
    const qlonglong channels = text.toLongLong(&ok);
    if (!ok || channels <= 0) return false;
    spec.channels = channels;
    break;
  }
  case StrideColumn:
    if (!parseStride(text, spec.stride)) return false;
    break;
  case TypeColumn:
    if (!QRegularExpression(QStringLiteral("^tensor<[^<>]+>$")).match(text).hasMatch()) return false;
    spec.type = text.toStdString();
    // The element type column shows the type's: refresh the row.
    Q_EMIT dataChanged(index.siblingAtColumn(0), index.siblingAtColumn(ColumnCount - 1));
    return true;
  default:
    return false;
  }
  Q_EMIT dataChanged(index, index);
  return true;
}

Qt::ItemFlags InputSpecModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  const bool sparse = isSparse(m_specs[static_cast<std::size_t>(index.row())]);
  switch (index.column()) {
  case KindColumn:
  case ChannelsColumn:
    f |= Qt::ItemIsEditable;
    break;
  case DTypeColumn:
  case StrideColumn:
    if (sparse) f |= Qt::ItemIsEditable;
    break;
  case TypeColumn:
    if (!sparse) f |= Qt::ItemIsEditable;
    break;
  default:
    break;
  }
  return f;
}

QVariant InputSpecModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
  case NameColumn:
    return QStringLiteral("Input");
  case KindColumn:
    return QStringLiteral("Kind");
  case DTypeColumn:
    return QStringLiteral("DType");
  case ChannelsColumn:
    return QStringLiteral("Channels");
  case StrideColumn:
    return QStringLiteral("Stride");
  case TypeColumn:
    return QStringLiteral("Tensor type");
  default:
    return {};
  }
}

} // namespace lattice::studio
