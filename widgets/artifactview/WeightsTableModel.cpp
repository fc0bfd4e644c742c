// WeightsTableModel: rows from the safetensors file read; statistics from a worker that walks
// the rows in order and publishes them through an atomic counter the UI polls (the worker never
// touches QObjects, and a destroyed model just sets the cancel flag: the worker holds the
// artifact alive until it notices).

#include "artifactview/WeightsTableModel.h"

#include "diff/ArtifactDiff.h"

#include <QLocale>
#include <QtConcurrent/QtConcurrentRun>

#include <unordered_map>

namespace lattice::studio {

struct WeightsTableModel::Shared {
  std::shared_ptr<const LoadedArtifact> artifact;
  /// Safetensors key → storage key of a packed weight whose `.weight` tensor it is.
  std::unordered_map<std::string, std::string> packed;
  std::vector<std::optional<WeightStats>> results; ///< sized up front; row i written before done > i
  std::atomic<int> done{0};
  std::atomic<bool> cancel{false};
};

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

QString shapeText(const std::vector<int64_t>& shape) {
  QStringList dims;
  for (int64_t d : shape)
    dims << QString::number(d);
  return QLatin1Char('[') + dims.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QString dtypeText(DType dtype) {
  const std::string_view name = dtypeName(dtype);
  return QString::fromLatin1(name.data(), static_cast<int>(name.size()));
}

QString number(double v) {
  return QString::number(v, 'g', 6);
}

/// `.weight` tensors of non-dense `lattice.weight` ops, by safetensors key.
std::unordered_map<std::string, std::string> packedKeys(const ArtifactGraph& graph) {
  std::unordered_map<std::string, std::string> out;
  const ArtifactFunction* fn = graph.entry();
  if (!fn) return out;
  for (const ArtifactOp& op : fn->ops) {
    if (op.kind != OpKind::Weight) continue;
    const ArtifactAttribute* key = op.attribute("storage_key");
    const ArtifactAttribute* packing = op.attribute("packing");
    if (!key || !key->value.isString() || !packing ||
        packing->value.kind != ArtifactAttrValue::Kind::Packing || packing->value.packing.kind == "dense")
      continue;
    out.emplace(key->value.text + ".weight", key->value.text);
  }
  return out;
}

void computeAll(WeightsTableModel::Shared* shared) {
  const auto& tensors = shared->artifact->weights->tensors();
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (shared->cancel) return;
    std::optional<WeightStats> stats;
    const auto packed = shared->packed.find(tensors[i].key);
    if (packed != shared->packed.end()) {
      Expected<std::vector<float>> values = weightValues(*shared->artifact, packed->second);
      if (values) {
        stats = valueStats(*values);
        if (stats) stats->dequantized = true;
      }
    }
    if (!stats) stats = tensorStats(tensors[i].tensor);
    shared->results[i] = stats;
    shared->done.store(static_cast<int>(i) + 1, std::memory_order_release);
  }
}

} // namespace

WeightsTableModel::WeightsTableModel(QObject* parent) : QAbstractTableModel(parent) {
  m_poll.setInterval(100);
  connect(&m_poll, &QTimer::timeout, this, &WeightsTableModel::poll);
}

WeightsTableModel::~WeightsTableModel() {
  if (m_shared) m_shared->cancel = true;
}

void WeightsTableModel::setArtifact(std::shared_ptr<const LoadedArtifact> artifact) {
  beginResetModel();
  if (m_shared) m_shared->cancel = true;
  m_shared.reset();
  m_poll.stop();
  m_reported = 0;
  m_computing = false;
  m_artifact = std::move(artifact);
  if (m_artifact && m_artifact->weights) {
    auto shared = std::make_shared<Shared>();
    shared->artifact = m_artifact;
    shared->packed = packedKeys(m_artifact->graph);
    shared->results.resize(m_artifact->weights->tensors().size());
    m_shared = shared;
  }
  endResetModel();
  if (!m_shared) return;
  if (m_shared->results.empty()) {
    Q_EMIT statisticsFinished();
    return;
  }
  m_computing = true;
  m_poll.start();
  std::shared_ptr<Shared> shared = m_shared;
  (void)QtConcurrent::run([shared] { computeAll(shared.get()); });
}

void WeightsTableModel::poll() {
  if (!m_shared) return;
  const int done = m_shared->done.load(std::memory_order_acquire);
  if (done > m_reported) {
    Q_EMIT dataChanged(index(m_reported, Min), index(done - 1, Mean));
    m_reported = done;
  }
  if (done == static_cast<int>(m_shared->results.size())) {
    m_poll.stop();
    m_computing = false;
    Q_EMIT statisticsFinished();
  }
}

int WeightsTableModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !m_shared) return 0;
  return static_cast<int>(m_shared->results.size());
}

int WeightsTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QString WeightsTableModel::key(int row) const {
  if (row < 0 || row >= rowCount()) return {};
  return qs(m_artifact->weights->tensors()[static_cast<std::size_t>(row)].key);
}

int WeightsTableModel::rowOfKey(const QString& key) const {
  for (int row = 0; row < rowCount(); ++row)
    if (this->key(row) == key) return row;
  return -1;
}

std::optional<WeightStats> WeightsTableModel::stats(int row) const {
  if (row < 0 || row >= m_reported) return std::nullopt;
  return m_shared->results[static_cast<std::size_t>(row)];
}

QVariant WeightsTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const int row = index.row();
  const NamedTensor& t = m_artifact->weights->tensors()[static_cast<std::size_t>(row)];
  const int column = index.column();
  const std::optional<WeightStats> s = stats(row);
  const bool ready = row < m_reported;

  if (role == Qt::TextAlignmentRole)
    return column >= Bytes ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                           : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole) {
    if (column >= Min && s && s->dequantized)
      return tr("dequantized values of the packed weight '%1'").arg(qs(m_shared->packed.at(t.key)));
    if (column >= Min && s && s->nans) return tr("%n NaN value(s) left out", nullptr, int(s->nans));
    return {};
  }
  if (role == SortRole) {
    switch (column) {
    case Key:
      return naturalSortKey(qs(t.key));
    case DTypeColumn:
      return dtypeText(t.tensor.dtype());
    case Shape:
      return static_cast<qlonglong>(t.tensor.numel());
    case Bytes:
      return static_cast<qulonglong>(t.tensor.byteSize());
    case Min:
      return s && s->count ? QVariant(s->min) : QVariant();
    case Max:
      return s && s->count ? QVariant(s->max) : QVariant();
    case Mean:
      return s && s->count ? QVariant(s->mean) : QVariant();
    default:
      return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (column) {
  case Key:
    return qs(t.key);
  case DTypeColumn:
    return dtypeText(t.tensor.dtype());
  case Shape:
    return shapeText(t.tensor.shape());
  case Bytes:
    return QLocale().toString(static_cast<qulonglong>(t.tensor.byteSize()));
  case Min:
  case Max:
  case Mean: {
    if (!ready) return QStringLiteral("…");
    if (!s || s->count == 0) return QStringLiteral("—");
    const double v = column == Min ? s->min : column == Max ? s->max : s->mean;
    return QString((s->dequantized ? QStringLiteral("≈ ") : QString()) + number(v));
  }
  default:
    return {};
  }
}

QVariant WeightsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
  case Key:
    return tr("Key");
  case DTypeColumn:
    return tr("DType");
  case Shape:
    return tr("Shape");
  case Bytes:
    return tr("Bytes");
  case Min:
    return tr("Min");
  case Max:
    return tr("Max");
  case Mean:
    return tr("Mean");
  default:
    return {};
  }
}

QString WeightsTableModel::naturalSortKey(const QString& key) {
  constexpr int kWidth = 20; // every int64 index fits
  QString out;
  out.reserve(key.size() + 8);
  for (int i = 0; i < key.size();) {
    if (!key[i].isDigit()) {
      out += key[i++];
      continue;
    }
    int end = i;
    while (end < key.size() && key[end].isDigit()) ++end;
    const QString digits = key.mid(i, end - i);
    if (digits.size() < kWidth) out += QString(kWidth - digits.size(), QLatin1Char('0'));
    out += digits;
    i = end;
  }
  return out;
}

} // namespace lattice::studio
