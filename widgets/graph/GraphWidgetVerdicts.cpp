// GraphWidget's node roles from the lowering's own verdicts: checkLowering (a dry run of the
// lowering on the session's graph and inputs) runs on a worker, as the numeric run's prepare job
// does, so a large graph does not stall the window; the scene takes the verdicts when the job is
// done. Until then (and when no dry run is possible) the calls are shown as not checked.

#include "graph/GraphWidget.h"

#include "StudioSession.h"
#include "graph/GraphScene.h"
#include "lowering/LoweringVerdicts.h"

#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace lattice::studio {

struct GraphWidget::VerdictResult {
  quint64 generation = 0;
  std::shared_ptr<const LoweringVerdicts> verdicts;
  QString error; ///< why no dry run was possible
};

void GraphWidget::updateVerdicts() {
  const quint64 generation = ++m_verdictGeneration;
  const fx::Graph* graph = m_session->graph();
  const Model* model = m_session->model();
  if (!m_verdictWatcher) {
    m_verdictWatcher = new QFutureWatcher<std::shared_ptr<VerdictResult>>(this);
    connect(m_verdictWatcher, &QFutureWatcherBase::finished, this, &GraphWidget::onVerdictsReady);
  }
  m_verdictJobs.erase(std::remove_if(m_verdictJobs.begin(), m_verdictJobs.end(),
                                     [](const QFuture<std::shared_ptr<VerdictResult>>& f) { return f.isFinished(); }),
                      m_verdictJobs.end());
  if (!graph || !model) {
    m_verdictError.clear();
    m_scene->setVerdicts(nullptr, graph);
    Q_EMIT verdictsChanged();
    return;
  }
  ExportOptions options = m_session->exportOptions();
  options.tracer = &m_session->tracer();
  QFuture<std::shared_ptr<VerdictResult>> job = QtConcurrent::run([model, graph, options, generation] {
    auto result = std::make_shared<VerdictResult>();
    result->generation = generation;
    Expected<LoweringVerdicts> checked = checkLowering(*model, options, *graph);
    if (checked)
      result->verdicts = std::make_shared<const LoweringVerdicts>(std::move(*checked));
    else
      result->error = QString::fromStdString(checked.message());
    return result;
  });
  m_verdictJobs.push_back(job);
  m_verdictWatcher->setFuture(job);
}

void GraphWidget::onVerdictsReady() {
  if (!m_verdictWatcher->isFinished()) return;
  const std::shared_ptr<VerdictResult> result = m_verdictWatcher->result();
  if (!result || result->generation != m_verdictGeneration) return; // a newer request is under way
  m_verdictError = result->error;
  m_scene->setVerdicts(result->verdicts, m_session->graph());
  Q_EMIT verdictsChanged();
}

void GraphWidget::waitForVerdictJobs() {
  for (QFuture<std::shared_ptr<VerdictResult>>& job : m_verdictJobs) job.waitForFinished();
  m_verdictJobs.clear();
  ++m_verdictGeneration; // what they computed is about the model and graph that are going away
}

} // namespace lattice::studio
