// ValueRowsModel: setValue records where the numbers are (pointers into the shared buffers, the
// row pitch) and the table's extent; data() turns one number into text when a view asks.

#include "numeric/ValueRowsModel.h"

#include "runtime/CoordSet.h"
#include "tensor/TensorConvert.h"

#include <QBrush>
#include <QColor>
#include <QStringList>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>

namespace lattice::studio {

QString floatText(float value) {
  char buffer[32];
  const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof buffer, value);
  return QString::fromLatin1(buffer, static_cast<int>(r.ptr - buffer));
}

ValueRowsModel::ValueRowsModel(QObject* parent, int pageRows, int maxColumns)
    : QAbstractTableModel(parent), m_pageRows(std::max(1, pageRows)), m_maxColumns(std::max(1, maxColumns)) {}

void ValueRowsModel::clear() {
  setValue(runtime::RuntimeValue());
}

void ValueRowsModel::setValue(const runtime::RuntimeValue& value) {
  beginResetModel();
  m_value = value;
  m_sparse = false;
  m_totalRows = 0;
  m_valueColumns = 0;
  m_floats = nullptr;
  m_ints = nullptr;
  m_coords = nullptr;
  m_stride[0] = m_stride[1] = m_stride[2] = 1;
  m_innerShape.clear();

  // A dense weight reads like a dense tensor (its stored tensor widened once to floats or ints).
  if (const auto* w = std::get_if<runtime::WeightRef>(&m_value); w && !w->quantized()) {
    runtime::Tensor t;
    t.shape = w->dense.shape();
    const DType d = w->dense.dtype();
    if (d == DType::F32 || d == DType::F16 || d == DType::BF16 || d == DType::F64) {
      if (Expected<std::vector<float>> f = toFloatVector(w->dense)) {
        t.dtype = DType::F32;
        t.floats = std::make_shared<const std::vector<float>>(std::move(*f));
        m_value = std::move(t);
      }
    } else if (Expected<std::vector<std::int64_t>> i = toIntVector(w->dense)) {
      t.dtype = DType::I64;
      t.ints = std::make_shared<const std::vector<std::int64_t>>(std::move(*i));
      m_value = std::move(t);
    }
  }

  if (const auto* s = std::get_if<runtime::Sparse>(&m_value)) {
    m_sparse = true;
    m_totalRows = s->rows();
    m_valueColumns = s->channels;
    m_coords = s->coords ? s->coords->data().data() : nullptr;
    for (int a = 0; a < 3; ++a)
      m_stride[a] = s->stride[static_cast<std::size_t>(a)];
    if (s->features && static_cast<std::int64_t>(s->features->size()) >= m_totalRows * m_valueColumns)
      m_floats = s->features->data();
    if (!m_floats) m_valueColumns = 0;
    if (!m_coords) m_totalRows = 0;
  } else if (const auto* t = std::get_if<runtime::Tensor>(&m_value)) {
    m_totalRows = t->rows();
    m_valueColumns = t->rowSize();
    if (t->shape.size() >= 2) m_innerShape.assign(t->shape.begin() + 1, t->shape.end());
    const std::size_t n = static_cast<std::size_t>(std::max<std::int64_t>(0, t->numel()));
    if (t->isFloat() && t->floats && t->floats->size() >= n) m_floats = t->floats->data();
    if (!t->isFloat() && t->ints && t->ints->size() >= n) m_ints = t->ints->data();
    if (!m_floats && !m_ints) m_totalRows = 0;
  }
  m_totalRows = std::max<std::int64_t>(0, m_totalRows);
  m_valueColumns = std::max<std::int64_t>(0, m_valueColumns);
  m_shownColumns = static_cast<int>(std::min<std::int64_t>(m_valueColumns, m_maxColumns));
  m_loadedRows = static_cast<int>(std::min<std::int64_t>({m_totalRows, m_pageRows, INT_MAX}));
  endResetModel();
}

int ValueRowsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : m_loadedRows;
}

int ValueRowsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : coordinateColumns() + m_shownColumns;
}

bool ValueRowsModel::canFetchMore(const QModelIndex& parent) const {
  return !parent.isValid() && m_loadedRows < std::min<std::int64_t>(m_totalRows, INT_MAX);
}

void ValueRowsModel::fetchMore(const QModelIndex& parent) {
  if (!canFetchMore(parent)) return;
  const int add = static_cast<int>(
      std::min<std::int64_t>(m_pageRows, std::min<std::int64_t>(m_totalRows, INT_MAX) - m_loadedRows));
  beginInsertRows(QModelIndex(), m_loadedRows, m_loadedRows + add - 1);
  m_loadedRows += add;
  endInsertRows();
}

void ValueRowsModel::fetchUpTo(std::int64_t row) {
  while (row >= m_loadedRows && canFetchMore(QModelIndex()))
    fetchMore(QModelIndex());
}

QString ValueRowsModel::columnsNote() const {
  if (!columnsCapped()) return {};
  return m_sparse ? tr("showing the first %1 of %2 features").arg(m_shownColumns).arg(m_valueColumns)
                  : tr("showing the first %1 of %2 elements per row").arg(m_shownColumns).arg(m_valueColumns);
}

ValueRowsModel::Cell ValueRowsModel::cell(std::int64_t row, int column) const {
  Cell c;
  if (m_sparse && column < 4) {
    c.isInt = true;
    const std::int64_t logical = m_coords[4 * row + column];
    c.i = column == 0 ? logical : logical * m_stride[column - 1];
    return c;
  }
  const std::int64_t offset = row * m_valueColumns + (column - coordinateColumns());
  if (m_ints) {
    c.isInt = true;
    c.i = m_ints[offset];
  } else if (m_floats) {
    c.f = m_floats[offset];
  }
  return c;
}

QString ValueRowsModel::cellText(std::int64_t row, int column) const {
  if (row < 0 || row >= m_totalRows || column < 0 || column >= columnCount()) return {};
  const Cell c = cell(row, column);
  return c.isInt ? QString::number(c.i) : floatText(c.f);
}

QVariant ValueRowsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const int column = index.column();
  switch (role) {
  case Qt::DisplayRole:
    return cellText(index.row(), column);
  case ValueRole: {
    const Cell c = cell(index.row(), column);
    return c.isInt ? QVariant(static_cast<qlonglong>(c.i)) : QVariant(static_cast<double>(c.f));
  }
  case Qt::TextAlignmentRole:
    return QVariant(static_cast<int>(Qt::AlignRight | Qt::AlignVCenter));
  case Qt::ForegroundRole: {
    const Cell c = cell(index.row(), column);
    if (!c.isInt && !std::isfinite(c.f)) return QBrush(QColor(200, 30, 30));
    if (m_sparse && column < 4) return QBrush(QColor(90, 90, 90));
    return {};
  }
  default:
    return {};
  }
}

QString ValueRowsModel::columnName(int column) const {
  static const char* const coordNames[] = {"b", "x", "y", "z"};
  if (m_sparse && column < 4) return QString::fromLatin1(coordNames[column]);
  const int k = column - coordinateColumns();
  if (m_sparse) return QStringLiteral("f%1").arg(k);
  if (m_innerShape.size() <= 1) return m_innerShape.empty() ? tr("value") : QString::number(k);
  // The multi-index of flattened element k over shape[1:]: "[1, 2]".
  std::vector<std::int64_t> idx(m_innerShape.size());
  std::int64_t rest = k;
  for (std::size_t d = m_innerShape.size(); d-- > 0;) {
    const std::int64_t extent = std::max<std::int64_t>(1, m_innerShape[d]);
    idx[d] = rest % extent;
    rest /= extent;
  }
  QStringList parts;
  for (std::int64_t i : idx)
    parts << QString::number(i);
  return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QVariant ValueRowsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Vertical) {
    if (section < 0 || section >= m_loadedRows) return {};
    if (role == Qt::DisplayRole) return QString::number(section);
    if (role == Qt::TextAlignmentRole) return QVariant(static_cast<int>(Qt::AlignRight | Qt::AlignVCenter));
    return {};
  }
  if (section < 0 || section >= columnCount()) return {};
  const bool lastShown = columnsCapped() && section == columnCount() - 1;
  if (role == Qt::DisplayRole) {
    const QString name = columnName(section);
    return lastShown ? tr("%1 (+%2 more)").arg(name).arg(m_valueColumns - m_shownColumns) : name;
  }
  if (role == Qt::ToolTipRole) {
    if (m_sparse && section < 4)
      return tr("physical coordinate (logical × stride (%1, %2, %3))")
          .arg(m_stride[0])
          .arg(m_stride[1])
          .arg(m_stride[2]);
    return columnsCapped() ? columnsNote() : QVariant();
  }
  return {};
}

} // namespace lattice::studio
