// MainWindow's numeric debugger: Debug ▸ Run on Inputs (the model's artifact lowered in
// memory and executed on a worker, progress in the status bar, Esc cancels), Run Inputs…,
// Numeric Stepping (each stepped node's ops run too), Go to First Divergent Node (against the
// archive's recorded activations), and View ▸ Overlay (time or accuracy colours on the model
// graph, with the legend in the status bar). The values themselves are in the Values dock.

#include "MainWindow.h"

#include "StudioSession.h"
#include "artifactview/ArtifactRun.h"
#include "artifactview/ArtifactView.h"
#include "artifactview/CompareView.h"
#include "graph/GraphScene.h"
#include "graph/GraphWidget.h"
#include "numeric/NumericOverlay.h"
#include "numeric/NumericRun.h"
#include "panels/InputSpecEditor.h"
#include "runtime/ValueSummary.h"

#include <QAction>
#include <QActionGroup>
#include <QInputDialog>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QStatusBar>

namespace lattice::studio {

void MainWindow::createNumericActions() {
  m_numeric = new NumericRun(m_session, this);
  // Run on Inputs: the model (lowered in memory), or the artifact whose tab is current.
  connect(makeAction(QStringLiteral("debug.runInputs"), tr("Run on In&puts"), QKeySequence(tr("Ctrl+R"))),
          &QAction::triggered, this, [this] {
            if (auto* artifact = qobject_cast<ArtifactView*>(m_tabs->currentWidget()))
              artifact->runBar()->run();
            else
              m_numeric->run();
          });
  connect(makeAction(QStringLiteral("debug.numericInputs"), tr("Run Inp&uts…"), QKeySequence(tr("Ctrl+Shift+I"))),
          &QAction::triggered, this, [this] { showInputSpecDialog(m_session, this, true); });
  QAction* stepping = makeAction(QStringLiteral("debug.numericStepping"), tr("&Numeric Stepping"));
  stepping->setCheckable(true);
  stepping->setChecked(m_numeric->isStepping());
  stepping->setToolTip(tr("Also execute each node's ops on the run inputs as the interpreter steps"));
  connect(stepping, &QAction::toggled, m_numeric, &NumericRun::setStepping);
  connect(makeAction(QStringLiteral("debug.firstDivergent"), tr("Go to First &Divergent Node"),
                     QKeySequence(tr("Ctrl+Shift+G"))),
          &QAction::triggered, this, [this] {
            if (auto* compare = qobject_cast<CompareView*>(m_tabs->currentWidget())) {
              compare->selectFirstDivergent(); // Run Both's first op over the tolerance
              return;
            }
            const QString node = m_numeric->firstDivergentNode();
            if (!node.isEmpty()) m_session->selectNode(node);
          });
  // View ▸ Overlay: colour the model graph by time or by error against the recorded golden.
  auto* overlays = new QActionGroup(this);
  const std::pair<const char*, QString> modes[] = {
      {"view.overlayNone", tr("&None")}, {"view.overlayTime", tr("&Time")}, {"view.overlayAccuracy", tr("&Accuracy")}};
  for (const auto& [id, text] : modes) {
    QAction* a = makeAction(QString::fromLatin1(id), text);
    a->setCheckable(true);
    overlays->addAction(a);
    connect(a, &QAction::triggered, this, &MainWindow::applyOverlay);
  }
  action(QStringLiteral("view.overlayNone"))->setChecked(true);
  connect(makeAction(QStringLiteral("view.overlayThreshold"), tr("Accuracy &Threshold…")), &QAction::triggered, this,
          [this] {
            bool ok = false;
            const double t = QInputDialog::getDouble(this, tr("Accuracy Threshold"),
                                                     tr("Relative L2 error above which a node diverges:"),
                                                     m_numeric->tolerance(), 0.0, 1e6, 8, &ok, Qt::WindowFlags(), 1e-5);
            if (ok) m_numeric->setTolerance(t);
          });
  m_overlayLegend = new QLabel(this);
  m_overlayLegend->setObjectName(QStringLiteral("overlayLegend"));
  m_overlayLegend->setTextFormat(Qt::RichText);
  m_overlayLegend->hide();
  statusBar()->addPermanentWidget(m_overlayLegend);
  connect(m_numeric, &NumericRun::valuesChanged, this, &MainWindow::applyOverlay);
  connect(m_graph, &GraphWidget::layoutFinished, this, &MainWindow::applyOverlay);

  // Esc (debug.interrupt) also cancels Run on Inputs (numeric stepping's ops go on: they are the
  // interpreter's, which Esc pauses).
  connect(action(QStringLiteral("debug.interrupt")), &QAction::triggered, m_numeric, [this] {
    if (m_numeric->isWholeRun()) m_numeric->cancel();
    if (auto* artifact = qobject_cast<ArtifactView*>(m_tabs->currentWidget())) artifact->runBar()->cancel();
  });

  m_runProgress = new QProgressBar(this);
  m_runProgress->setObjectName(QStringLiteral("numericRunProgress"));
  m_runProgress->setMaximumWidth(180);
  m_runProgress->setFormat(tr("ops %v / %m"));
  m_runProgress->hide();
  statusBar()->addPermanentWidget(m_runProgress);
  connect(m_numeric, &NumericRun::progressed, this, [this](int done, int total) {
    m_runProgress->setMaximum(std::max(total, 1));
    m_runProgress->setValue(done);
  });
  connect(m_numeric, &NumericRun::stateChanged, this, &MainWindow::onNumericStateChanged);
  connect(m_numeric, &NumericRun::valuesChanged, this, &MainWindow::updateActions);
  connect(m_numeric, &NumericRun::failed, this, [this](const QString& node, const QString& message) {
    if (!node.isEmpty()) m_session->selectNode(node);
    statusBar()->showMessage(tr("Run failed: %1").arg(message.section(QLatin1Char('\n'), 0, 0)), 15000);
  });
}

OverlayMode MainWindow::overlayMode() const {
  if (action(QStringLiteral("view.overlayTime"))->isChecked()) return OverlayMode::Time;
  if (action(QStringLiteral("view.overlayAccuracy"))->isChecked()) return OverlayMode::Accuracy;
  return OverlayMode::None;
}

void MainWindow::applyOverlay() {
  const OverlayMode mode = overlayMode();
  m_graph->scene()->setHeat(overlayColours(mode, *m_numeric, m_graph->grouping()));
  const QString legend = overlayLegend(mode, *m_numeric);
  m_overlayLegend->setText(legend);
  m_overlayLegend->setVisible(!legend.isEmpty());
}

void MainWindow::onNumericStateChanged() {
  const NumericRun::State state = m_numeric->state();
  // Numeric stepping's ops run quietly: the interpreter's own status stays.
  const bool wholeRun = m_numeric->isWholeRun();
  m_runProgress->setVisible(wholeRun);
  if (wholeRun) {
    statusBar()->showMessage(tr("Running on %1… (Esc cancels)").arg(m_numeric->describeInputs()));
  } else if (state == NumericRun::State::Finished && m_numeric->lowered()) {
    double ms = 0.0;
    const runtime::Runtime& rt = m_numeric->lowered()->runtime;
    for (int op = 0; op < m_numeric->opsTotal(); ++op) ms += rt.stats(op).ms;
    QString text = tr("Ran %1 ops in %2 ms on %3")
                       .arg(m_numeric->opsTotal())
                       .arg(QLocale().toString(ms, 'f', 1))
                       .arg(m_numeric->describeInputs());
    if (const RecordingCheck* check = m_numeric->recordingCheck()) {
      if (check->nodes.empty() && !check->warnings.empty())
        text += tr("; no golden: %1").arg(QString::fromStdString(check->warnings.front()));
      else if (check->withinTolerance())
        text += tr("; every node checked against %1 within tolerance").arg(m_numeric->goldenDescription());
      else if (check->onlyKnownDifferences())
        text += tr("; differs from %1 only where torch-lattice and mlx-lattice differ by design (first at %2)")
                    .arg(m_numeric->goldenDescription(),
                         QString::fromStdString(check->nodes[std::size_t(check->firstDifference)].ref.node));
      else
        text += tr("; first divergent node: %1 (Ctrl+Shift+G)").arg(m_numeric->firstDivergentNode());
    }
    for (const std::string& warning : runtime::nonFiniteOutputs(rt)) // NaN or ±inf
      text += tr("; warning: %1").arg(QString::fromStdString(warning));
    statusBar()->showMessage(text, 15000);
  }
  updateActions();
}

} // namespace lattice::studio
