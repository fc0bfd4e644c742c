// GraphWidget's node roles from the lowering's own verdicts: checkLowering (a dry run of the
// lowering on the session's graph and inputs) runs on a worker over a snapshot of the session, as
// the numeric run's prepare job does, so a large graph does not stall the window and a model
// change never waits for it; the scene takes the verdicts when the job is done, unless the
// session has changed since (the result is then dropped). Until then (and when no dry run is
// possible) the calls are shown as not checked.

#include "graph/GraphWidget.h"

#include "StudioSession.h"
#include "session/ModelSnapshot.h"
#include "graph/GraphScene.h"
#include "lowering/LoweringVerdicts.h"

#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace lattice::studio {

struct GraphWidget::VerdictResult {
  quint64 generation = 0;
  quint64 revision = 0; ///< the session's revision the job read
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
  std::shared_ptr<const ModelSnapshot> snapshot = m_session->snapshot();
  QFuture<std::shared_ptr<VerdictResult>> job = QtConcurrent::run([snapshot, generation] {
    auto result = std::make_shared<VerdictResult>();
    result->generation = generation;
    result->revision = snapshot->revision;
    if (!snapshot->model || !snapshot->graph) return result;
    Expected<LoweringVerdicts> checked = checkLowering(*snapshot->model, snapshot->options, *snapshot->graph);
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
  if (result->revision != m_session->revision()) return;             // about a model that has changed
  m_verdictError = result->error;
  m_scene->setVerdicts(result->verdicts, m_session->graph());
  Q_EMIT verdictsChanged();
}

void GraphWidget::waitForVerdictJobs() {
  for (QFuture<std::shared_ptr<VerdictResult>>& job : m_verdictJobs) job.waitForFinished();
  m_verdictJobs.clear();
  ++m_verdictGeneration;
}

} // namespace lattice::studio
