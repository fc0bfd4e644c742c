// MainWindow's numeric debugger (issue 21): Debug ▸ Run on Inputs (the model's artifact lowered in
// memory and executed on a worker, progress in the status bar, Esc cancels), Run Inputs…,
// Numeric Stepping (each stepped node's ops run too), and Go to First Divergent Node (against the
// archive's recorded activations). The values themselves are shown by the panels.

#include "MainWindow.h"

#include "StudioSession.h"
#include "numeric/NumericInputsDialog.h"
#include "numeric/NumericRun.h"

#include <QAction>
#include <QLocale>
#include <QProgressBar>
#include <QStatusBar>

namespace lattice::studio {

void MainWindow::createNumericActions() {
  m_numeric = new NumericRun(m_session, this);
  connect(makeAction(QStringLiteral("debug.runInputs"), tr("Run on In&puts"), QKeySequence(tr("Ctrl+R"))),
          &QAction::triggered, m_numeric, &NumericRun::run);
  connect(makeAction(QStringLiteral("debug.numericInputs"), tr("Run Inp&uts…"), QKeySequence(tr("Ctrl+Shift+I"))),
          &QAction::triggered, this, [this] {
            NumericInputsDialog dialog(m_numeric, this);
            dialog.exec();
          });
  QAction* stepping = makeAction(QStringLiteral("debug.numericStepping"), tr("&Numeric Stepping"));
  stepping->setCheckable(true);
  stepping->setChecked(m_numeric->isStepping());
  stepping->setToolTip(tr("Also execute each node's ops on the run inputs as the interpreter steps"));
  connect(stepping, &QAction::toggled, m_numeric, &NumericRun::setStepping);
  connect(makeAction(QStringLiteral("debug.firstDivergent"), tr("Go to First &Divergent Node"),
                     QKeySequence(tr("Ctrl+Shift+G"))),
          &QAction::triggered, this, [this] {
            const QString node = m_numeric->firstDivergentNode();
            if (!node.isEmpty()) m_session->selectNode(node);
          });
  // Esc (debug.interrupt) also cancels a numeric run.
  connect(action(QStringLiteral("debug.interrupt")), &QAction::triggered, m_numeric, &NumericRun::cancel);

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

void MainWindow::onNumericStateChanged() {
  const NumericRun::State state = m_numeric->state();
  m_runProgress->setVisible(state == NumericRun::State::Running);
  if (state == NumericRun::State::Running) {
    m_runProgress->setValue(0);
    statusBar()->showMessage(tr("Running on %1… (Esc cancels)").arg(m_numeric->describeInputs()));
  } else if (state == NumericRun::State::Finished && m_numeric->lowered()) {
    double ms = 0.0;
    const runtime::Runtime& rt = m_numeric->lowered()->runtime;
    for (int op = 0; op < m_numeric->opsTotal(); ++op) ms += rt.stats(op).ms;
    QString text = tr("Ran %1 ops in %2 ms on %3")
                       .arg(m_numeric->opsTotal())
                       .arg(QLocale().toString(ms, 'f', 1))
                       .arg(m_numeric->describeInputs());
    if (const RecordingCheck* check = m_numeric->recordingCheck())
      text += check->withinTolerance()
                  ? tr("; every recorded node within tolerance")
                  : tr("; first divergent node: %1 (Ctrl+Shift+G)").arg(m_numeric->firstDivergentNode());
    statusBar()->showMessage(text, 15000);
  }
  updateActions();
}

} // namespace lattice::studio
