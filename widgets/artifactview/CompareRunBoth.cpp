// CompareView's Run Both: both artifacts executed on the same inputs, every
// matched op coloured by B's error against A, the error charted along the data flow.
#include "artifactview/CompareView.h"

#include "artifactview/ArtifactGraphView.h"
#include "artifactview/ArtifactOpGraph.h"
#include "artifactview/ArtifactStyle.h"
#include "charts/DataFlowChart.h"
#include "numeric/NumericOverlay.h"
#include "runtime/RandomInputs.h"

#include <QFutureWatcher>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QtConcurrent/QtConcurrentRun>

#include <limits>

namespace lattice::studio {

namespace {

struct NumericResult {
  QString error;
  std::shared_ptr<const NumericDiff> diff;
};

NumericResult runBothOn(const std::string& a, const std::string& b, qint64 points, quint64 seed) {
  Expected<runtime::Runtime> ra = runtime::Runtime::open(a);
  if (!ra) return {QString::fromStdString("A: " + ra.message()), nullptr};
  Expected<runtime::Runtime> rb = runtime::Runtime::open(b);
  if (!rb) return {QString::fromStdString("B: " + rb.message()), nullptr};
  runtime::RandomInputOptions options;
  options.points = points;
  options.seed = seed;
  Expected<std::vector<NamedTensor>> tensors = runtime::randomInputs(rb->plan(), options);
  if (!tensors) return {QString::fromStdString(tensors.message()), nullptr};
  runtime::RuntimeInputs inputs;
  inputs.named = std::move(*tensors);
  Expected<NumericDiff> diff = lattice::numericDiff(*ra, *rb, inputs);
  if (!diff) return {QString::fromStdString(diff.message()), nullptr};
  return {QString(), std::make_shared<const NumericDiff>(std::move(*diff))};
}

} // namespace

void CompareView::runBoth(qint64 points, quint64 seed) {
  if (!m_diff || m_runningBoth) return;
  m_runningBoth = true;
  m_runBoth->setEnabled(false);
  m_runBoth->setText(tr("Running both…"));
  const quint64 generation = ++m_numericGeneration;
  auto* watcher = new QFutureWatcher<NumericResult>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    const NumericResult r = watcher->result();
    watcher->deleteLater();
    applyNumeric(generation, r.error, r.diff);
  });
  watcher->setFuture(QtConcurrent::run(&runBothOn, m_pathA.toStdString(), m_pathB.toStdString(), points, seed));
}

void CompareView::applyNumeric(quint64 generation, const QString& error, std::shared_ptr<const NumericDiff> diff) {
  if (generation != m_numericGeneration) return;
  m_runningBoth = false;
  m_runBoth->setEnabled(true);
  m_runBoth->setText(tr("Run Both"));
  m_numericError = error;
  m_numeric = std::move(diff);
  if (!m_numeric) {
    updateHeader();
    Q_EMIT runBothFailed(error);
    return;
  }
  // Each side's ops: the status style, filled with the heat of B's error.
  QVector<ArtifactNodeStyle> stylesA, stylesB;
  for (DiffStatus s : m_statusA) stylesA << statusStyle(s);
  for (DiffStatus s : m_statusB) stylesB << statusStyle(s);
  std::vector<DataFlowChart::Point> points;
  for (const NumericValueDiff& d : m_numeric->ops) {
    const double error =
        d.problem.empty() ? d.divergence.relL2 : std::numeric_limits<double>::infinity();
    const QColor heat = heatColor(errorHeat(error, m_numeric->tolerance));
    const int nodeB = d.indexB >= 0 ? m_opGraphB->nodeOfOp(d.indexB) : -1;
    const int nodeA = d.indexA >= 0 ? m_opGraphA->nodeOfOp(d.indexA) : -1;
    if (nodeB >= 0 && nodeB < stylesB.size()) stylesB[nodeB].fill = heat;
    if (nodeA >= 0 && nodeA < stylesA.size()) stylesA[nodeA].fill = heat;
    points.emplace_back(QStringLiteral("%") + QString::fromStdString(d.name), error);
  }
  m_graphA->setStyles(stylesA);
  m_graphB->setStyles(stylesB);
  m_errorChart->setValues(std::move(points), m_numeric->tolerance);
  m_errorChart->show();
  updateHeader();
  Q_EMIT runBothFinished();
}

bool CompareView::selectFirstDivergent() {
  if (!m_numeric || m_numeric->firstDivergent < 0 || !m_opGraphB) return false;
  const NumericValueDiff& d = m_numeric->ops[std::size_t(m_numeric->firstDivergent)];
  selectNode(true, m_opGraphB->nodeOfOp(d.indexB));
  m_errorChart->setCurrentIndex(m_numeric->firstDivergent);
  return true;
}

} // namespace lattice::studio
