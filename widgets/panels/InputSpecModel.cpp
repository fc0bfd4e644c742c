// InputSpecModel: edits a vector of InputSpec, its own or the session's. It checks each value's
// form (kinds, dtypes, positive channels and strides, a `tensor<...>` type, identifier names);
// whether the ABI fits the model is resolveExport's job when the interpreter starts or the
// export runs, except for a sparse input's channel count, which must be what the first op that
// takes the input needs (channelNeed: the lowering's own artifact, read with the verifier's
// channel rules). Every edit builds the next list and commits it between the table's own
// begin/end signals, so views get row inserts, removals and moves, not resets; a change that
// comes from the session (undo, another view, a model opened) resets the table.

#include "panels/InputSpecModel.h"

#include "StudioSession.h"
#include "lowering/ArtifactValue.h"

#include <QRegularExpression>

namespace lattice::studio {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

bool isSparse(const InputSpec& spec) {
  return spec.kind == InputSpec::Kind::Sparse;
}

bool isIdentifier(const QString& name) {
  static const QRegularExpression identifier(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
  return identifier.match(name).hasMatch();
}

/// Quoted for a POSIX shell when it holds anything but plain characters (`<`, `>`, `?`).
QString shellWord(const QString& word) {
  static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_:.,=/+-]+$"));
  if (plain.match(word).hasMatch()) return word;
  QString quoted = word;
  quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
  return QLatin1Char('\'') + quoted + QLatin1Char('\'');
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

InputSpecModel::InputSpecModel(StudioSession* session, QObject* parent)
    : QAbstractTableModel(parent), m_session(session) {
  m_specs = session->inputSpecs();
  connect(session, &StudioSession::inputSpecsChanged, this, &InputSpecModel::followSession);
  // What the needs were computed from changed: compute them again when next asked.
  for (auto signal : {&StudioSession::graphChanged, &StudioSession::exportOptionsChanged})
    connect(session, signal, this, [this] { m_needsKey.clear(); });
  connect(session, &StudioSession::weightsLoaded, this, [this] { m_needsKey.clear(); });
  connect(session, &StudioSession::modelLoaded, this, [this] { m_needsKey.clear(); });
}

void InputSpecModel::setSpecs(std::vector<InputSpec> specs) {
  if (m_session) {
    m_session->setInputSpecs(std::move(specs), QStringLiteral("Set Inputs")); // followSession resets
    return;
  }
  beginResetModel();
  m_specs = std::move(specs);
  m_fixedNames.clear();
  for (const InputSpec& spec : m_specs)
    m_fixedNames << qs(spec.name);
  endResetModel();
}

void InputSpecModel::followSession() {
  if (m_committing || !m_session) return;
  beginResetModel();
  m_specs = m_session->inputSpecs();
  endResetModel();
}

void InputSpecModel::commit(std::vector<InputSpec> next, const QString& description) {
  m_specs = std::move(next);
  if (!m_session) return;
  m_committing = true;
  m_session->setInputSpecs(m_specs, description);
  m_committing = false;
}

QStringList InputSpecModel::fixedNames() const {
  if (!m_session) return m_fixedNames;
  QStringList names;
  for (const InputSpec& spec : m_session->archiveInputSpecs())
    names << qs(spec.name);
  return names;
}

bool InputSpecModel::isNameEditable(int row) const {
  if (row < 0 || row >= rowCount()) return false;
  return !fixedNames().contains(qs(m_specs[static_cast<std::size_t>(row)].name));
}

QString InputSpecModel::nameError(int row, const QString& name) const {
  if (name.isEmpty()) return QStringLiteral("an input needs a name");
  if (!isIdentifier(name))
    return QStringLiteral("'%1' is not a name: use letters, digits and '_', not starting with a digit")
        .arg(name);
  for (int r = 0; r < rowCount(); ++r)
    if (r != row && qs(m_specs[static_cast<std::size_t>(r)].name) == name)
      return QStringLiteral("another input is named '%1'").arg(name);
  return {};
}

QString InputSpecModel::suggestedName() const {
  return suggestedNameAmong(m_specs);
}

QString InputSpecModel::suggestedNameAmong(const std::vector<InputSpec>& specs) const {
  QStringList used;
  for (const InputSpec& spec : specs)
    used << qs(spec.name);
  if (m_session)
    for (const QString& name : m_session->forwardInputNames())
      if (!used.contains(name) && isIdentifier(name)) return name;
  if (!used.contains(QStringLiteral("input"))) return QStringLiteral("input");
  for (int i = 1;; ++i) {
    const QString name = QStringLiteral("input_%1").arg(i);
    if (!used.contains(name)) return name;
  }
}

std::optional<InputChannelNeed> InputSpecModel::channelNeed(int row) const {
  if (!m_session || !m_session->model() || row < 0 || row >= rowCount() ||
      !isSparse(m_specs[static_cast<std::size_t>(row)]))
    return std::nullopt;
  // The needs do not depend on the channel counts themselves: the key leaves them out.
  QString key = QString::number(reinterpret_cast<quintptr>(m_session->model())) + QLatin1Char('/') +
                QString::number(reinterpret_cast<quintptr>(m_session->graph()));
  for (InputSpec spec : m_specs) {
    spec.channels.reset();
    key += QLatin1Char(' ') + cliText(spec);
  }
  if (key != m_needsKey) {
    m_needsKey = key;
    m_needs.clear();
    ExportOptions options = m_session->exportOptions();
    options.inputs = m_specs;
    options.tracer = &m_session->tracer();
    Expected<std::vector<InputChannelNeed>> needs = inputChannelNeeds(*m_session->model(), options, m_session->graph());
    if (needs) m_needs = std::move(*needs);
  }
  for (const InputChannelNeed& need : m_needs)
    if (need.input == static_cast<std::size_t>(row)) return need;
  return std::nullopt;
}

QString InputSpecModel::channelsError(int row, std::int64_t channels) const {
  const std::optional<InputChannelNeed> need = channelNeed(row);
  if (!need || need->channels == channels) return {};
  return QStringLiteral("'%1' takes %2 channel%3, not %4: its first layer %5 (%6) has weight '%7' with %2 "
                        "input channels")
      .arg(qs(m_specs[static_cast<std::size_t>(row)].name))
      .arg(need->channels)
      .arg(need->channels == 1 ? QString() : QStringLiteral("s"))
      .arg(channels)
      .arg(need->node.empty() ? QStringLiteral("?") : qs(need->node), qs(need->op), qs(need->weightKey));
}

int InputSpecModel::addInput(int row) {
  if (row < 0 || row > rowCount()) row = rowCount();
  insertRows(row, 1);
  return row;
}

bool InputSpecModel::removeInput(int row) {
  return removeRows(row, 1);
}

bool InputSpecModel::moveInput(int row, int delta) {
  if (row < 0 || row >= rowCount() || (delta != -1 && delta != 1)) return false;
  const int target = row + delta;
  if (target < 0 || target >= rowCount()) return false;
  // moveRows' destination is the row the moved one goes before, in the old numbering.
  return moveRows(QModelIndex(), row, 1, QModelIndex(), delta < 0 ? target : target + 1);
}

bool InputSpecModel::insertRows(int row, int count, const QModelIndex& parent) {
  if (parent.isValid() || row < 0 || row > rowCount() || count < 1) return false;
  std::vector<InputSpec> next = m_specs;
  std::string dtype = "f32";
  for (auto it = m_specs.rbegin(); it != m_specs.rend(); ++it)
    if (isSparse(*it) && !it->dtype.empty()) {
      dtype = it->dtype; // sparse inputs share one feature dtype
      break;
    }
  beginInsertRows(QModelIndex(), row, row + count - 1);
  for (int i = 0; i < count; ++i) {
    InputSpec spec;
    spec.kind = InputSpec::Kind::Sparse;
    spec.dtype = dtype;
    spec.name = suggestedNameAmong(next).toStdString(); // unique among the rows inserted so far
    next.insert(next.begin() + row + i, spec);
  }
  commit(std::move(next), count == 1 ? QStringLiteral("Add Input") : QStringLiteral("Add Inputs"));
  endInsertRows();
  return true;
}

bool InputSpecModel::removeRows(int row, int count, const QModelIndex& parent) {
  if (parent.isValid() || row < 0 || count < 1 || row + count > rowCount()) return false;
  std::vector<InputSpec> next = m_specs;
  next.erase(next.begin() + row, next.begin() + row + count);
  beginRemoveRows(QModelIndex(), row, row + count - 1);
  commit(std::move(next), count == 1 ? QStringLiteral("Remove Input") : QStringLiteral("Remove Inputs"));
  endRemoveRows();
  return true;
}

bool InputSpecModel::moveRows(const QModelIndex& sourceParent, int sourceRow, int count,
                              const QModelIndex& destinationParent, int destinationChild) {
  if (sourceParent.isValid() || destinationParent.isValid() || count < 1 || sourceRow < 0 ||
      sourceRow + count > rowCount() || destinationChild < 0 || destinationChild > rowCount())
    return false;
  if (destinationChild >= sourceRow && destinationChild <= sourceRow + count) return false; // no move
  if (!beginMoveRows(QModelIndex(), sourceRow, sourceRow + count - 1, QModelIndex(), destinationChild))
    return false;
  std::vector<InputSpec> moved(m_specs.begin() + sourceRow, m_specs.begin() + sourceRow + count);
  std::vector<InputSpec> next = m_specs;
  next.erase(next.begin() + sourceRow, next.begin() + sourceRow + count);
  const int at = destinationChild > sourceRow ? destinationChild - count : destinationChild;
  next.insert(next.begin() + at, moved.begin(), moved.end());
  commit(std::move(next), QStringLiteral("Move Input"));
  endMoveRows();
  return true;
}

QString InputSpecModel::cliText(const InputSpec& spec) {
  if (!isSparse(spec)) return qs(spec.name) + QStringLiteral(":dense:") + qs(spec.type);
  QString text = qs(spec.name) + QStringLiteral(":sparse:") +
                 (spec.dtype.empty() ? QStringLiteral("f32") : qs(spec.dtype)) + QLatin1Char(':') +
                 (spec.channels ? QString::number(*spec.channels) : QStringLiteral("?"));
  if (spec.stride != std::array<int64_t, 3>{1, 1, 1})
    text += QStringLiteral(":%1,%2,%3").arg(spec.stride[0]).arg(spec.stride[1]).arg(spec.stride[2]);
  return text;
}

QString InputSpecModel::cliArguments() const {
  QStringList words;
  for (const InputSpec& spec : m_specs)
    words << QStringLiteral("--input") << shellWord(cliText(spec));
  return words.join(QLatin1Char(' '));
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
  const InputSpec& spec = m_specs[static_cast<std::size_t>(index.row())];
  if (role == Qt::ToolTipRole) {
    // Which forward parameter the row becomes (the ABI names come from the signature), and the
    // row as lattice-cli takes it.
    QString where;
    if (m_session && m_session->model()) {
      const QStringList forward = m_session->forwardInputNames();
      where = index.row() < forward.size()
                  ? QStringLiteral("forward input %1 '%2'").arg(index.row() + 1).arg(forward[index.row()])
                  : QStringLiteral("no forward input %1: the model takes %2")
                        .arg(index.row() + 1)
                        .arg(forward.size());
      where += QStringLiteral("\n");
    }
    QString tip = where + QStringLiteral("lattice-cli lower --input ") + shellWord(cliText(spec));
    if (index.column() == ChannelsColumn)
      if (const std::optional<InputChannelNeed> need = channelNeed(index.row()))
        tip += QStringLiteral("\nThe first layer %1 (%2) takes %3 input channels (weight '%4').")
                   .arg(qs(need->node), qs(need->op))
                   .arg(need->channels)
                   .arg(qs(need->weightKey));
    return tip;
  }
  if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
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
  const std::size_t row = static_cast<std::size_t>(index.row());
  InputSpec spec = m_specs[row];
  const QString text = value.toString().trimmed();
  bool wholeRow = false; // the dtype column of a dense row follows its type; a kind switch changes all
  switch (index.column()) {
  case NameColumn:
    if (!nameError(index.row(), text).isEmpty()) return false;
    spec.name = text.toStdString();
    break;
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
      spec.dtype = elementTypeOf(spec.type); // as the archive reader records a dense input
    }
    wholeRow = true;
    break;
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
    if (!channelsError(index.row(), channels).isEmpty()) return false;
    spec.channels = channels;
    break;
  }
  case StrideColumn:
    if (!parseStride(text, spec.stride)) return false;
    break;
  case TypeColumn:
    if (!QRegularExpression(QStringLiteral("^tensor<[^<>]+>$")).match(text).hasMatch()) return false;
    spec.type = text.toStdString();
    spec.dtype = elementTypeOf(spec.type);
    wholeRow = true;
    break;
  default:
    return false;
  }
  std::vector<InputSpec> next = m_specs;
  next[row] = std::move(spec);
  const QString description =
      QStringLiteral("Edit %1 of '%2'")
          .arg(headerData(index.column(), Qt::Horizontal).toString(), qs(m_specs[row].name));
  commit(std::move(next), description);
  if (wholeRow)
    Q_EMIT dataChanged(index.siblingAtColumn(0), index.siblingAtColumn(ColumnCount - 1));
  else
    Q_EMIT dataChanged(index, index);
  return true;
}

Qt::ItemFlags InputSpecModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  const bool sparse = isSparse(m_specs[static_cast<std::size_t>(index.row())]);
  switch (index.column()) {
  case NameColumn:
    if (isNameEditable(index.row())) f |= Qt::ItemIsEditable;
    break;
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
