// ArtifactRun: an opened artifact run on the CPU runtime, the run bar, and its overlay colours.
#include "artifactview/ArtifactRun.h"

#include "ElidedLabel.h"
#include "numeric/NumericOverlay.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleValidator>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QSettings>
#include <QSpinBox>
#include <QTextDocumentFragment>
#include <QTimer>
#include <QToolButton>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

namespace lattice::studio {

namespace {

QString toQ(const std::string& s) { return QString::fromStdString(s); }

enum InputsItem { RandomInputs = 0, FileInputs = 1 };

/// Lays its widgets out in rows, left to right, wrapping when the next one does not fit; the
/// last widget (the result line) takes the rest of its row, or a row of its own when less than
/// its size hint (or a third of the width) is left. Its minimum width is its widest widget's.
class FlowLayout : public QLayout {
public:
  explicit FlowLayout(QWidget* parent) : QLayout(parent) {}
  ~FlowLayout() override {
    while (QLayoutItem* item = takeAt(0))
      delete item;
  }
  void addItem(QLayoutItem* item) override { m_items << item; }
  int count() const override { return int(m_items.size()); }
  QLayoutItem* itemAt(int index) const override { return m_items.value(index); }
  QLayoutItem* takeAt(int index) override {
    return index >= 0 && index < m_items.size() ? m_items.takeAt(index) : nullptr;
  }
  Qt::Orientations expandingDirections() const override { return {}; }
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override { return arrange(QRect(0, 0, width, 0), false); }
  void setGeometry(const QRect& rect) override {
    QLayout::setGeometry(rect);
    arrange(rect, true);
  }
  QSize sizeHint() const override { // one row
    int w = 0, h = 0;
    for (QLayoutItem* item : m_items) {
      if (item->isEmpty()) continue;
      w += item->sizeHint().width() + (w ? spacingX() : 0);
      h = std::max(h, item->sizeHint().height());
    }
    const QMargins m = contentsMargins();
    return {w + m.left() + m.right(), h + m.top() + m.bottom()};
  }
  QSize minimumSize() const override {
    int w = 0, h = 0;
    for (QLayoutItem* item : m_items) {
      if (item->isEmpty()) continue;
      w = std::max(w, item->minimumSize().width());
      h = std::max(h, item->minimumSize().height());
    }
    const QMargins m = contentsMargins();
    return {w + m.left() + m.right(), h + m.top() + m.bottom()};
  }

private:
  int spacingX() const { return spacing() >= 0 ? spacing() : 6; }

  /// Places the items in `rect` (when `apply`); the height they take.
  int arrange(const QRect& rect, bool apply) const {
    const QRect area = rect.marginsRemoved(contentsMargins());
    struct Placed {
      QLayoutItem* item;
      int x, width, row;
    };
    QList<Placed> placed;
    QList<int> rowHeights{0};
    int x = area.left();
    QLayoutItem* last = nullptr;
    for (QLayoutItem* item : m_items)
      if (!item->isEmpty()) last = item;
    for (QLayoutItem* item : m_items) {
      if (item->isEmpty()) continue;
      const QSize hint = item->sizeHint();
      const int left = area.right() + 1 - x;
      int width = std::min(hint.width(), area.width());
      if (item == last) {
        const bool fits = left >= std::min(hint.width(), std::max(area.width() / 3, item->minimumSize().width()));
        if (!fits && x > area.left()) {
          x = area.left();
          rowHeights << 0;
        }
        width = std::max(area.right() + 1 - x, item->minimumSize().width());
      } else if (x > area.left() && width > left) {
        x = area.left();
        rowHeights << 0;
      }
      width = std::max(width, item->minimumSize().width());
      placed.push_back({item, x, width, int(rowHeights.size()) - 1});
      rowHeights.back() = std::max(rowHeights.back(), hint.height());
      x += width + spacingX();
    }
    constexpr int kRowGap = 2;
    int height = 0;
    QList<int> rowTop;
    for (int row = 0; row < rowHeights.size(); ++row) {
      if (row) height += kRowGap;
      rowTop << area.top() + height;
      height += rowHeights[row];
    }
    if (apply)
      for (const Placed& p : placed) {
        const int h = std::min(p.item->sizeHint().height(), rowHeights[p.row]);
        p.item->setGeometry(QRect(p.x, rowTop[p.row] + (rowHeights[p.row] - h) / 2, p.width, h));
      }
    const QMargins m = contentsMargins();
    return std::max(height, 0) + m.top() + m.bottom();
  }

  QList<QLayoutItem*> m_items;
};


} // namespace

// --- the bar ------------------------------------------------------------------------------------

ArtifactRunBar::ArtifactRunBar(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("artifactRunBar"));
  m_runButton = new QToolButton(this);
  m_runButton->setObjectName(QStringLiteral("artifactRun"));
  m_runButton->setText(tr("Run"));
  m_runButton->setToolTip(tr("Run the artifact on these inputs (Ctrl+R); Esc cancels"));

  m_inputs = new QComboBox(this);
  m_inputs->setObjectName(QStringLiteral("artifactRunInputs"));
  m_inputs->addItem(tr("Random points"));
  m_inputs->addItem(tr("Inputs file…"));
  m_inputs->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_inputs->setMinimumContentsLength(14);
  m_points = new QSpinBox(this);
  m_points->setObjectName(QStringLiteral("artifactRunPoints"));
  m_points->setRange(1, 10'000'000);
  m_points->setGroupSeparatorShown(true);
  m_points->setToolTip(tr("Random points (spread over the batch)"));
  m_seed = new QSpinBox(this);
  m_seed->setObjectName(QStringLiteral("artifactRunSeed"));
  m_seed->setRange(0, std::numeric_limits<int>::max());
  m_seed->setPrefix(tr("seed "));

  m_expectedButton = new QToolButton(this);
  m_expectedButton->setObjectName(QStringLiteral("artifactRunExpected"));
  m_expectedButton->setText(tr("Expected…"));
  m_expectedButton->setToolTip(tr("An expected-outputs .safetensors to check the outputs against "
                                   "(right-click: none)"));
  m_expectedButton->setContextMenuPolicy(Qt::CustomContextMenu);
  m_expectedLabel = new ElidedLabel(this);
  m_expectedLabel->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
  auto* validator = new QDoubleValidator(0.0, 1e6, 12, this);
  validator->setNotation(QDoubleValidator::ScientificNotation);
  m_rtol = new QLineEdit(QStringLiteral("1e-05"), this);
  m_rtol->setObjectName(QStringLiteral("artifactRunRtol"));
  m_atol = new QLineEdit(QStringLiteral("1e-08"), this);
  m_atol->setObjectName(QStringLiteral("artifactRunAtol"));
  for (QLineEdit* e : {m_rtol, m_atol}) {
    e->setValidator(validator);
    e->setFixedWidth(e->fontMetrics().horizontalAdvance(QStringLiteral("0.00001x")) + 12);
  }
  m_rtol->setToolTip(tr("Relative tolerance (|a − b| ≤ atol + rtol·|b|)"));
  m_atol->setToolTip(tr("Absolute tolerance (|a − b| ≤ atol + rtol·|b|)"));

  m_overlay = new QComboBox(this);
  m_overlay->setObjectName(QStringLiteral("artifactRunOverlay"));
  m_overlay->addItem(tr("Op categories"));
  m_overlay->addItem(tr("Time overlay"));
  m_overlay->addItem(tr("Accuracy overlay"));

  m_progressBar = new QProgressBar(this);
  m_progressBar->setMaximumWidth(140);
  m_progressBar->setFormat(tr("ops %v / %m"));
  m_progressBar->hide();
  m_status = new ElidedLabel(this);
  m_status->setObjectName(QStringLiteral("artifactRunStatus"));
  // The result line takes the room the controls leave, elided (its full text is its tooltip's head).
  m_status->setMinimumWidth(120);

  // The controls wrap onto a second row rather than widen the window; the result line takes
  // the rest of its row, or a row of its own, elided.
  const auto group = [this](std::initializer_list<QWidget*> widgets) {
    auto* box = new QWidget(this);
    auto* row = new QHBoxLayout(box);
    row->setContentsMargins(0, 0, 0, 0);
    for (QWidget* w : widgets) {
      w->setParent(box);
      row->addWidget(w);
    }
    return box;
  };
  QWidget* expected = group({m_expectedButton, m_expectedLabel});
  m_tolerances = group({new QLabel(tr("rtol"), this), m_rtol, new QLabel(tr("atol"), this), m_atol});
  auto* layout = new FlowLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  for (QWidget* w : std::initializer_list<QWidget*>{m_runButton, m_inputs, m_points, m_seed, expected, m_tolerances,
                                                    m_overlay, m_progressBar, m_status})
    layout->addWidget(w);

  QSettings settings;
  m_points->setValue(settings.value(QStringLiteral("artifactRun/points"), 1000).toInt());
  m_seed->setValue(settings.value(QStringLiteral("artifactRun/seed"), 0).toInt());
  m_overlay->setCurrentIndex(std::clamp(settings.value(QStringLiteral("artifactRun/overlay"), 0).toInt(), 0, 2));

  m_poll = new QTimer(this);
  m_poll->setInterval(100);
  connect(m_poll, &QTimer::timeout, this, [this] {
    m_progressBar->setMaximum(std::max(m_total->load(), 1));
    m_progressBar->setValue(m_progress->load());
  });
  connect(&m_watcher, &QFutureWatcherBase::finished, this, &ArtifactRunBar::onFinished);
  connect(m_runButton, &QToolButton::clicked, this, [this] { m_running ? cancel() : run(); });
  connect(m_inputs, QOverload<int>::of(&QComboBox::activated), this, [this](int item) {
    if (item == RandomInputs) {
      setInputsFile(QString());
      return;
    }
    const QString file = chooseFile(tr("Inputs"));
    setInputsFile(file.isEmpty() ? m_inputsFile : file);
  });
  connect(m_points, QOverload<int>::of(&QSpinBox::valueChanged), this,
          [](int v) { QSettings().setValue(QStringLiteral("artifactRun/points"), v); });
  connect(m_seed, QOverload<int>::of(&QSpinBox::valueChanged), this,
          [](int v) { QSettings().setValue(QStringLiteral("artifactRun/seed"), v); });
  connect(m_expectedButton, &QToolButton::clicked, this, [this] {
    const QString file = chooseFile(tr("Expected Outputs"));
    if (!file.isEmpty()) setExpectedFile(file);
  });
  connect(m_expectedButton, &QWidget::customContextMenuRequested, this, [this] { setExpectedFile(QString()); });
  connect(m_overlay, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this](int index) {
    QSettings().setValue(QStringLiteral("artifactRun/overlay"), index);
    Q_EMIT overlayChanged();
  });
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  m_progress = std::make_shared<std::atomic<int>>(0);
  m_total = std::make_shared<std::atomic<int>>(0);
  updateWidgets();
}

ArtifactRunBar::~ArtifactRunBar() {
  // The job owns copies of everything it reads; it only needs to stop.
  m_cancel->store(true);
  m_watcher.waitForFinished();
}

QString ArtifactRunBar::chooseFile(const QString& title) {
  const QString dir = m_artifact.isEmpty() ? QString() : QFileInfo(m_artifact).absolutePath();
  return QFileDialog::getOpenFileName(this, title, dir, tr("safetensors (*.safetensors);;All files (*)"));
}

void ArtifactRunBar::setArtifact(const QString& path) {
  if (m_running) {
    cancel();
    m_stale = true; // its result is the previous artifact's: dropped when it ends
  }
  m_artifact = path;
  m_result.reset();
  const ConformanceFiles conformance = conformanceFilesNextTo(QFile::encodeName(path).toStdString());
  m_inputsFile = QFile::decodeName(conformance.inputs.c_str());
  m_expectedFile = QFile::decodeName(conformance.expected.c_str());
  m_rtol->setText(QString::number(conformance.rtol, 'g', 6));
  m_atol->setText(QString::number(conformance.atol, 'g', 6));
  m_rtol->setCursorPosition(0);
  m_atol->setCursorPosition(0);
  m_rtol->setToolTip(conformance.fromManifest ? tr("Relative tolerance (the conformance manifest's)")
                                              : tr("Relative tolerance (|a − b| ≤ atol + rtol·|b|)"));
  m_status->clear();
  updateWidgets();
  Q_EMIT finished(); // the old result is gone: the overlay goes back to the categories
}

void ArtifactRunBar::setInputsFile(const QString& file) {
  m_inputsFile = file;
  updateWidgets();
}

void ArtifactRunBar::setExpectedFile(const QString& file) {
  m_expectedFile = file;
  updateWidgets();
}

ArtifactRunRequest ArtifactRunBar::request() const {
  ArtifactRunRequest r;
  r.artifact = QFile::encodeName(m_artifact).toStdString();
  if (m_inputsFile.isEmpty()) {
    r.inputs.random.points = m_points->value();
    r.inputs.random.seed = static_cast<std::uint64_t>(m_seed->value());
  } else {
    r.inputs = RunInputSpec::fromFile(QFile::encodeName(m_inputsFile).toStdString());
  }
  r.expectedFile = QFile::encodeName(m_expectedFile).toStdString();
  bool ok = false;
  const double rtol = QLocale::c().toDouble(m_rtol->text(), &ok);
  if (ok && rtol >= 0) r.rtol = rtol;
  const double atol = QLocale::c().toDouble(m_atol->text(), &ok);
  if (ok && atol >= 0) r.atol = atol;
  return r;
}

ArtifactOverlay ArtifactRunBar::overlay() const { return static_cast<ArtifactOverlay>(m_overlay->currentIndex()); }

void ArtifactRunBar::setOverlay(ArtifactOverlay overlay) { m_overlay->setCurrentIndex(static_cast<int>(overlay)); }

void ArtifactRunBar::run() {
  if (m_running || m_artifact.isEmpty()) return;
  m_running = true;
  // Each run gets its own flags: a cancelled run's worker may still be looking at its old ones.
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  m_progress = std::make_shared<std::atomic<int>>(0);
  m_total = std::make_shared<std::atomic<int>>(0);
  m_progressBar->setValue(0);
  m_status->setText(tr("Running…"));
  updateWidgets();
  m_watcher.setFuture(
      QtConcurrent::run([request = request(), cancel = m_cancel, progress = m_progress, total = m_total] {
        return std::make_shared<ArtifactRunResult>(runArtifact(request, *cancel, *progress, *total));
      }));
  m_poll->start();
  Q_EMIT runningChanged(true);
}

void ArtifactRunBar::cancel() {
  if (m_running) m_cancel->store(true);
}

void ArtifactRunBar::onFinished() {
  if (!m_running) return;
  m_poll->stop();
  m_running = false;
  if (std::exchange(m_stale, false)) {
    updateWidgets();
    Q_EMIT runningChanged(false);
    return;
  }
  std::shared_ptr<ArtifactRunResult> result = m_watcher.result();
  m_result = std::make_unique<ArtifactRunResult>(std::move(*result));
  const ArtifactRunResult& r = *m_result;
  const QLocale locale;
  QString text;
  if (r.cancelled) {
    text = tr("Cancelled");
  } else if (!r.error.empty()) {
    const QString error = toQ(r.error).toHtmlEscaped();
    text = r.failedOpName.empty() ? tr("<b>Failed:</b> %1").arg(error)
                                  : tr("<b>Failed at %%1:</b> %2").arg(toQ(r.failedOpName).toHtmlEscaped(), error);
  } else {
    text = tr("Ran %1 ops in %2 ms").arg(r.opMs.size()).arg(locale.toString(r.totalMs, 'f', r.totalMs < 10 ? 2 : 1));
    if (r.hasGolden()) {
      int failedOutputs = 0;
      for (const runtime::OutputCheck& c : r.checks) failedOutputs += c.ok ? 0 : 1;
      text += failedOutputs == 0
                  ? tr("; every output matches the expected file")
                  : tr("; <b>%n output(s) differ</b> from the expected file", nullptr, failedOutputs);
    }
    for (const std::string& warning : r.warnings) text += tr("; <b>warning:</b> %1").arg(toQ(warning).toHtmlEscaped());
  }
  m_status->setText(text);
  QStringList details;
  for (const runtime::OutputCheck& c : r.checks) {
    details << (c.problem.empty()
                    ? tr("%1: %2, max |Δ| %3, relative L2 %4")
                          .arg(toQ(c.name), c.ok ? tr("ok") : tr("FAIL"))
                          .arg(c.divergence.maxAbs, 0, 'g', 3)
                          .arg(c.divergence.relL2, 0, 'g', 3)
                    : tr("%1: FAIL: %2").arg(toQ(c.name), toQ(c.problem)));
  }
  details.prepend(QTextDocumentFragment::fromHtml(text).toPlainText());
  m_status->setToolTip(details.join(QLatin1Char('\n')));
  updateWidgets();
  Q_EMIT runningChanged(false);
  Q_EMIT finished();
}

void ArtifactRunBar::updateWidgets() {
  m_runButton->setText(m_running ? tr("Cancel") : tr("Run"));
  m_runButton->setEnabled(!m_artifact.isEmpty());
  m_progressBar->setVisible(m_running);
  const bool random = m_inputsFile.isEmpty();
  m_inputs->setCurrentIndex(random ? RandomInputs : FileInputs);
  m_inputs->setItemText(FileInputs, random ? tr("Inputs file…") : QFileInfo(m_inputsFile).fileName());
  m_inputs->setToolTip(random ? tr("Random points from the artifact's ABI") : m_inputsFile);
  m_points->setVisible(random);
  m_seed->setVisible(random);
  m_expectedLabel->setText(m_expectedFile.isEmpty() ? tr("no golden") : QFileInfo(m_expectedFile).fileName());
  m_expectedLabel->setToolTip(m_expectedFile);
  // Tolerances matter only against a golden.
  m_tolerances->setVisible(!m_expectedFile.isEmpty());
  for (QWidget* w : std::initializer_list<QWidget*>{m_inputs, m_points, m_seed, m_expectedButton, m_rtol, m_atol})
    w->setEnabled(!m_running);
}

// --- overlay ------------------------------------------------------------------------------------

QColor artifactOverlayColour(ArtifactOverlay overlay, const ArtifactRunResult& result, int op) {
  if (op < 0) return {};
  if (overlay == ArtifactOverlay::Time) {
    if (op >= static_cast<int>(result.opMs.size()) || result.opMs[static_cast<std::size_t>(op)] < 0) return {};
    const double slowest = *std::max_element(result.opMs.begin(), result.opMs.end());
    return heatColor(slowest > 0 ? result.opMs[static_cast<std::size_t>(op)] / slowest : 0.0);
  }
  if (overlay == ArtifactOverlay::Accuracy) {
    // Several outputs may come from one op: its worst.
    std::optional<double> worst;
    for (std::size_t i = 0; i < result.checks.size(); ++i) {
      if (result.checkOps[i] != op) continue;
      const runtime::OutputCheck& c = result.checks[i];
      const double t = !c.problem.empty() || !c.ok ? 1.0 : std::min(0.5, c.divergence.relL2 > 0 ? 0.25 : 0.0);
      worst = std::max(worst.value_or(0.0), t);
    }
    if (worst) return heatColor(*worst);
  }
  return {};
}

QString artifactOverlayLegend(ArtifactOverlay overlay, const ArtifactRunResult* result) {
  if (!result || overlay == ArtifactOverlay::Categories) return {};
  if (overlay == ArtifactOverlay::Time) {
    const double slowest = result->opMs.empty() ? 0.0 : *std::max_element(result->opMs.begin(), result->opMs.end());
    return ArtifactRunBar::tr("Time: <span style='color:%1'>■</span> fast → <span style='color:%2'>■</span> "
                              "slowest op (%3 ms); ops that did not run keep their category")
        .arg(heatColor(0.0).name(), heatColor(1.0).name(), QLocale().toString(std::max(slowest, 0.0), 'f', 2));
  }
  if (!result->hasGolden())
    return ArtifactRunBar::tr("Accuracy: no golden (choose an expected-outputs file, then Run)");
  return ArtifactRunBar::tr("Accuracy of the outputs against the expected file: <span style='color:%1'>■</span> "
                            "identical, <span style='color:%2'>■</span> within rtol/atol, "
                            "<span style='color:%3'>■</span> outside; other ops have no golden")
      .arg(heatColor(0.0).name(), heatColor(0.25).name(), heatColor(1.0).name());
}

} // namespace lattice::studio
