// ValueInspector: the layout (title, summary form beside the histogram, rows table below) and
// the summary's trip to a worker thread for large values.

#include "numeric/ValueInspector.h"

#include "charts/HistogramChart.h"
#include "numeric/ValueRowsModel.h"
#include "runtime/Runtime.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedLayout>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <climits>
#include <cmath>
#include <memory>

namespace lattice::studio {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

std::string keyName(const std::string& name) {
  return !name.empty() && name.front() == '%' ? name.substr(1) : name;
}

std::uint64_t elementCount(const runtime::RuntimeValue& value) {
  if (const auto* t = std::get_if<runtime::Tensor>(&value))
    return static_cast<std::uint64_t>(std::max<std::int64_t>(0, t->numel()));
  if (const auto* s = std::get_if<runtime::Sparse>(&value))
    return static_cast<std::uint64_t>(std::max<std::int64_t>(0, s->rows() * s->channels));
  if (const auto* w = std::get_if<runtime::WeightRef>(&value))
    return static_cast<std::uint64_t>(std::max<std::int64_t>(0, w->dense.numel()));
  return 0;
}

QString countText(std::uint64_t n) {
  return QLocale().toString(static_cast<qulonglong>(n));
}

QString shapeText(const std::vector<std::int64_t>& shape) {
  QStringList parts;
  for (std::int64_t d : shape)
    parts << QString::number(d);
  return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

bool isFloatDType(DType d) {
  return d == DType::F32 || d == DType::F16 || d == DType::BF16 || d == DType::F64;
}

/// A min or max: the element itself (floats as the shortest text of the float, integers whole).
QString elementText(double v, DType dtype) {
  if (std::isnan(v)) return QStringLiteral("—");
  return isFloatDType(dtype) ? floatText(static_cast<float>(v)) : QString::number(static_cast<qlonglong>(v));
}

/// A mean or std: a double, to 8 significant digits.
QString momentText(double v) {
  return std::isnan(v) ? QStringLiteral("—") : QString::number(v, 'g', 8);
}

struct Field {
  const char* key;
  const char* label;
};

constexpr Field kFields[] = {
    {"kind", QT_TRANSLATE_NOOP("ValueInspector", "Kind")},
    {"dtype", QT_TRANSLATE_NOOP("ValueInspector", "DType")},
    {"shape", QT_TRANSLATE_NOOP("ValueInspector", "Shape")},
    {"rows", QT_TRANSLATE_NOOP("ValueInspector", "Active rows")},
    {"channels", QT_TRANSLATE_NOOP("ValueInspector", "Channels")},
    {"stride", QT_TRANSLATE_NOOP("ValueInspector", "Stride")},
    {"capacity", QT_TRANSLATE_NOOP("ValueInspector", "Capacity")},
    {"weight", QT_TRANSLATE_NOOP("ValueInspector", "Weight")},
    {"elements", QT_TRANSLATE_NOOP("ValueInspector", "Elements")},
    {"nan", QT_TRANSLATE_NOOP("ValueInspector", "NaN")},
    {"posInf", QT_TRANSLATE_NOOP("ValueInspector", "+inf")},
    {"negInf", QT_TRANSLATE_NOOP("ValueInspector", "−inf")},
    {"zeros", QT_TRANSLATE_NOOP("ValueInspector", "Zeros")},
    {"min", QT_TRANSLATE_NOOP("ValueInspector", "Min")},
    {"max", QT_TRANSLATE_NOOP("ValueInspector", "Max")},
    {"mean", QT_TRANSLATE_NOOP("ValueInspector", "Mean")},
    {"std", QT_TRANSLATE_NOOP("ValueInspector", "Std")},
    {"note", QT_TRANSLATE_NOOP("ValueInspector", "Note")},
};

} // namespace

std::vector<NamedTensor> valueTensors(const std::string& name, const runtime::RuntimeValue& value) {
  const std::string key = keyName(name);
  if (const auto* t = std::get_if<runtime::Tensor>(&value)) return {{key, runtime::toTensorData(*t)}};
  if (const auto* s = std::get_if<runtime::Sparse>(&value)) return runtime::sparseTensors(key, *s);
  if (const auto* w = std::get_if<runtime::WeightRef>(&value)) {
    if (!w->quantized()) return {{key, w->dense}};
    std::vector<NamedTensor> out{{key + ".weight", w->codes}, {key + ".scales", w->scales}};
    if (w->biases.byteSize() > 0) out.push_back({key + ".biases", w->biases});
    return out;
  }
  return {};
}

ValueInspector::ValueInspector(QWidget* parent) : QWidget(parent) {
  m_messageLabel = new QLabel(this);
  m_messageLabel->setAlignment(Qt::AlignCenter);
  m_messageLabel->setWordWrap(true);
  m_messageLabel->setMargin(12);

  auto* content = new QWidget(this);
  m_title = new QLabel(content);
  m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_title->setWordWrap(true);
  m_save = new QPushButton(tr("Save Value…"), content);
  m_save->setToolTip(
      tr("Write the value as .safetensors (sparse values as NAME.coords, NAME.features and NAME.active)"));
  auto* titleRow = new QHBoxLayout();
  titleRow->addWidget(m_title, 1);
  titleRow->addWidget(m_save);

  auto* formWidget = new QWidget(content);
  m_form = new QFormLayout(formWidget);
  m_form->setContentsMargins(0, 0, 0, 0);
  m_form->setLabelAlignment(Qt::AlignRight);
  for (const Field& f : kFields) {
    auto* label = new QLabel(formWidget);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setObjectName(QStringLiteral("summary.") + QLatin1String(f.key));
    m_form->addRow(tr(f.label), label);
    m_fields.insert(QLatin1String(f.key), label);
  }

  m_histogram = new HistogramChart(content);
  m_histogram->setPlaceholder(tr("No elements"));
  m_histogram->setMinimumHeight(150); // room for the axes' labels; the summary beside it scrolls
  m_logCounts = new QCheckBox(tr("Logarithmic counts"), content);
  connect(m_logCounts, &QCheckBox::toggled, m_histogram, &HistogramChart::setLogScale);
  auto* histogramBox = new QWidget(content);
  auto* histogramLayout = new QVBoxLayout(histogramBox);
  histogramLayout->setContentsMargins(0, 0, 0, 0);
  histogramLayout->addWidget(m_histogram, 1);
  histogramLayout->addWidget(m_logCounts);

  // A short dock scrolls the summary rather than squeezing its rows into each other.
  auto* formScroll = m_formScroll = new QScrollArea(content);
  formScroll->setObjectName(QStringLiteral("summaryScroll"));
  formScroll->setFrameShape(QFrame::NoFrame);
  formScroll->setWidgetResizable(true);
  formScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  formScroll->setWidget(formWidget);
  auto* top = new QWidget(content);
  auto* topLayout = new QHBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);
  topLayout->addWidget(formScroll);
  topLayout->addWidget(histogramBox, 1);

  m_rows = new ValueRowsModel(this);
  m_table = new QTableView(content);
  m_table->setModel(m_rows);
  m_table->setSelectionBehavior(QAbstractItemView::SelectItems);
  m_table->setWordWrap(false);
  m_table->setCornerButtonEnabled(false);
  // Uniform rows and fixed-width columns: the view never measures cells to lay itself out.
  m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  m_table->horizontalHeader()->setDefaultSectionSize(
      fontMetrics().horizontalAdvance(QStringLiteral("-0.000123456")) + 12);
  m_columnsNote = new QLabel(content);
  m_goTo = new QSpinBox(content);
  m_goTo->setPrefix(tr("Go to row "));
  m_goTo->setKeyboardTracking(false);
  connect(m_goTo, qOverload<int>(&QSpinBox::valueChanged), this, &ValueInspector::goToRow);
  auto* rowsBar = new QHBoxLayout();
  rowsBar->addWidget(m_columnsNote);
  rowsBar->addStretch(1);
  rowsBar->addWidget(m_goTo);
  auto* bottom = new QWidget(content);
  auto* bottomLayout = new QVBoxLayout(bottom);
  bottomLayout->setContentsMargins(0, 0, 0, 0);
  bottomLayout->addLayout(rowsBar);
  bottomLayout->addWidget(m_table, 1);

  auto* split = new QSplitter(Qt::Vertical, content);
  split->setChildrenCollapsible(false);
  split->addWidget(top);
  split->addWidget(bottom);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);

  auto* contentLayout = new QVBoxLayout(content);
  contentLayout->setContentsMargins(4, 4, 4, 4);
  contentLayout->addLayout(titleRow);
  contentLayout->addWidget(split, 1);

  m_stack = new QStackedLayout(this);
  m_stack->setContentsMargins(0, 0, 0, 0);
  m_stack->addWidget(m_messageLabel);
  m_stack->addWidget(content);

  connect(m_save, &QPushButton::clicked, this, &ValueInspector::saveInteractively);
  clear();
}

ValueInspector::~ValueInspector() = default;

void ValueInspector::clear() {
  setMessage(tr("Select a node or op that has a value"));
}

void ValueInspector::setMessage(const QString& message) {
  ++m_generation; // a summary still computing is dropped
  m_summaryRunning = false;
  m_name.clear();
  m_value = runtime::RuntimeValue();
  m_summary = runtime::ValueSummary();
  m_rows->clear();
  m_histogram->setMessage(QString());
  m_messageLabel->setText(message);
  m_stack->setCurrentWidget(m_messageLabel);
}

bool ValueInspector::showsMessage() const {
  return m_stack->currentWidget() == m_messageLabel;
}

QString ValueInspector::message() const {
  return showsMessage() ? m_messageLabel->text() : QString();
}

QString ValueInspector::titleText() const {
  return m_title->text();
}

QString ValueInspector::fieldText(const QString& key) const {
  QLabel* label = m_fields.value(key);
  return label && !label->isHidden() ? label->text() : QString();
}

void ValueInspector::setValue(const QString& name, const runtime::RuntimeValue& value) {
  if (std::holds_alternative<std::monostate>(value)) {
    setMessage(tr("%1 has no value (not computed yet, or freed after its last use)").arg(name));
    return;
  }
  const quint64 generation = ++m_generation;
  m_name = name;
  m_value = value;
  m_summary = runtime::ValueSummary();
  m_title->setText(QStringLiteral("<b>%1</b> — %2")
                       .arg(name.toHtmlEscaped(), qs(runtime::describeValue(value)).toHtmlEscaped()));
  m_rows->setValue(value);
  sizeColumns();
  m_columnsNote->setText(m_rows->columnsNote());
  m_columnsNote->setVisible(m_rows->columnsCapped());
  m_goTo->blockSignals(true);
  m_goTo->setRange(0, static_cast<int>(std::max<std::int64_t>(
                          0, std::min<std::int64_t>(m_rows->totalRows() - 1, INT_MAX))));
  m_goTo->setValue(0);
  m_goTo->blockSignals(false);
  m_goTo->setEnabled(m_rows->totalRows() > 1);
  m_stack->setCurrentIndex(1);

  if (elementCount(value) <= backgroundElements()) {
    m_summaryRunning = false;
    m_summary = runtime::summarize(value, histogramBins());
    showSummary();
    return;
  }
  m_summaryRunning = true;
  for (QLabel* label : std::as_const(m_fields))
    label->setText(tr("computing…"));
  m_histogram->setMessage(tr("Computing the histogram of %1 elements…").arg(countText(elementCount(value))));
  auto* watcher = new QFutureWatcher<runtime::ValueSummary>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    if (generation != m_generation) return; // another value (or a message) replaced this one
    m_summaryRunning = false;
    m_summary = watcher->result();
    showSummary();
  });
  const runtime::RuntimeValue copy = value; // shares the buffers
  watcher->setFuture(QtConcurrent::run([copy] { return runtime::summarize(copy, histogramBins()); }));
}

void ValueInspector::sizeColumns() {
  // Each column as wide as the first rows' texts and its title, a float's usual text at most
  // (wider cells elide): narrow coordinates, so the first features show beside them.
  const QFontMetrics fm = m_table->fontMetrics();
  const int cap = fm.horizontalAdvance(QStringLiteral("-0.00012345678")) + 12; // a float's longest text
  const int rows = std::min(m_rows->rowCount(), 64);
  QHeaderView* header = m_table->horizontalHeader();
  const QFontMetrics headerFm = header->fontMetrics();
  for (int c = 0; c < m_rows->columnCount(); ++c) {
    int w = headerFm.horizontalAdvance(m_rows->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString()) + 16;
    for (int r = 0; r < rows; ++r)
      w = std::max(w, fm.horizontalAdvance(m_rows->index(r, c).data().toString()) + 12);
    header->resizeSection(c, std::min(w, std::max(cap, headerFm.horizontalAdvance(QStringLiteral("f000")) + 16)));
  }
}

void ValueInspector::showSummary() {
  const runtime::ValueSummary& s = m_summary;
  const bool sparse = s.kind == runtime::ValueKind::Sparse;
  const bool weight = s.kind == runtime::ValueKind::Weight;
  auto set = [this](const char* key, const QString& text, bool visible = true) {
    QLabel* label = m_fields.value(QLatin1String(key));
    label->setText(text);
    label->setVisible(visible);
    if (QWidget* l = m_form->labelForField(label)) l->setVisible(visible);
  };
  set("kind", QString::fromLatin1(runtime::valueKindName(s.kind)));
  set("dtype", QString::fromLatin1(dtypeName(s.dtype).data(), static_cast<int>(dtypeName(s.dtype).size())));
  set("shape", shapeText(s.shape));
  set("rows", countText(static_cast<std::uint64_t>(s.rows)), sparse);
  set("channels", QString::number(s.channels), sparse);
  set("stride", QStringLiteral("(%1, %2, %3)").arg(s.stride[0]).arg(s.stride[1]).arg(s.stride[2]), sparse);
  set("capacity", countText(static_cast<std::uint64_t>(s.capacity)), sparse);
  set("weight", QStringLiteral("%1 (%2)").arg(qs(s.weightKey), qs(s.packing)), weight);
  set("elements", countText(s.count));
  set("nan", countText(s.nan));
  set("posInf", countText(s.posInf));
  set("negInf", countText(s.negInf));
  set("zeros", countText(s.zeros));
  set("min", elementText(s.min, s.dtype));
  set("max", elementText(s.max, s.dtype));
  set("mean", momentText(s.mean));
  set("std", momentText(s.stddev));
  set("note", qs(s.note), !s.note.empty());
  // The summary's width, and room for its scroll bar when the dock is short.
  m_formScroll->setMinimumWidth(m_formScroll->widget()->sizeHint().width() +
                                m_formScroll->verticalScrollBar()->sizeHint().width());
  if (s.count == 0)
    m_histogram->setMessage(s.note.empty() ? tr("No elements") : qs(s.note));
  else
    m_histogram->setHistogram(s.histogram,
                              tr("%1 elements, %2 zero, %3 non-finite")
                                  .arg(countText(s.count), countText(s.zeros), countText(s.nonFinite())));
  Q_EMIT summaryReady();
}

QString ValueInspector::saveValue(const QString& path) const {
  const std::vector<NamedTensor> tensors = valueTensors(m_name.toStdString(), m_value);
  if (tensors.empty()) return tr("there is no value to save");
  if (Status s = writeSafetensors(path.toStdString(), tensors, std::nullopt); !s) return qs(s.message());
  return {};
}

void ValueInspector::saveInteractively() {
  if (std::holds_alternative<std::monostate>(m_value)) return;
  QString base = m_name;
  if (base.startsWith(QLatin1Char('%'))) base.remove(0, 1);
  base.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]")), QStringLiteral("_"));
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Save Value"), base + QStringLiteral(".safetensors"), tr("Safetensors (*.safetensors)"));
  if (path.isEmpty()) return;
  const QString error = saveValue(path);
  if (!error.isEmpty())
    QMessageBox::warning(this, tr("Save Value"), tr("Could not save %1: %2").arg(m_name, error));
}

void ValueInspector::goToRow(int row) {
  m_rows->fetchUpTo(row);
  if (row >= m_rows->rowCount()) return;
  const QModelIndex index = m_rows->index(row, 0);
  m_table->scrollTo(index, QAbstractItemView::PositionAtTop);
  m_table->setCurrentIndex(index);
}

} // namespace lattice::studio
