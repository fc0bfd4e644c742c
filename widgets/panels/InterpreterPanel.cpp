// InterpreterPanel: presents ValueTableModel and DiagnosticsModel and forwards the tool bar to
// the session's slots. It holds no interpreter state of its own: every label and enabled flag
// is recomputed from the session when it signals.

#include "panels/InterpreterPanel.h"

#include "StudioSession.h"
#include "panels/DiagnosticsModel.h"
#include "panels/InputSpecEditor.h"
#include "panels/ValueTableModel.h"

#include <QAction>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

namespace lattice::studio {

InterpreterPanel::InterpreterPanel(StudioSession* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_values(new ValueTableModel(session, this)),
      m_diagnostics(new DiagnosticsModel(session, this)), m_valueView(new QTableView(this)),
      m_diagnosticsView(new QTableView(this)), m_state(new QLabel(this)) {
  setObjectName(QStringLiteral("interpreterPanel"));

  auto* toolBar = new QToolBar(this);
  toolBar->setToolButtonStyle(Qt::ToolButtonTextOnly);
  toolBar->setIconSize(QSize(16, 16));
  toolBar->addAction(makeAction(QStringLiteral("start"), QStringLiteral("Start"),
                                QStringLiteral("start (or restart) the interpreter on the first node")));
  toolBar->addAction(
      makeAction(QStringLiteral("step"), QStringLiteral("Step"), QStringLiteral("execute one node")));
  toolBar->addAction(makeAction(QStringLiteral("continue"), QStringLiteral("Continue"),
                                QStringLiteral("run to the next breakpoint or the end")));
  toolBar->addAction(makeAction(QStringLiteral("runToSelected"), QStringLiteral("Run to Selected"),
                                QStringLiteral("run until the selected node is the next to execute")));
  toolBar->addAction(makeAction(QStringLiteral("stop"), QStringLiteral("Stop"),
                                QStringLiteral("drop the interpreter state")));
  toolBar->addSeparator();
  toolBar->addAction(makeAction(QStringLiteral("breakpoint"), QStringLiteral("Breakpoint"),
                                QStringLiteral("toggle a breakpoint on the selected node")));
  toolBar->addSeparator();
  toolBar->addAction(
      makeAction(QStringLiteral("inputs"), QStringLiteral("Inputs…"),
                 QStringLiteral("edit the model's inputs (shared with File ▸ Export Artifact…)")));
  connect(action(QStringLiteral("start")), &QAction::triggered, session, &StudioSession::startInterpreter);
  connect(action(QStringLiteral("step")), &QAction::triggered, session, &StudioSession::step);
  connect(action(QStringLiteral("continue")), &QAction::triggered, session, &StudioSession::continueRun);
  connect(action(QStringLiteral("runToSelected")), &QAction::triggered, this,
          [this] { m_session->runToNode(m_session->selectedNode()); });
  connect(action(QStringLiteral("stop")), &QAction::triggered, session, &StudioSession::stopInterpreter);
  connect(action(QStringLiteral("breakpoint")), &QAction::triggered, this,
          [this] { m_session->toggleBreakpoint(m_session->selectedNode()); });
  connect(action(QStringLiteral("inputs")), &QAction::triggered, this,
          [this] { showInputSpecDialog(m_session, this); });

  m_valueView->setModel(m_values);
  m_valueView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_valueView->setSelectionMode(QAbstractItemView::SingleSelection);
  m_valueView->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_valueView->verticalHeader()->setVisible(false);
  m_valueView->verticalHeader()->setDefaultSectionSize(m_valueView->fontMetrics().height() + 6);
  m_valueView->horizontalHeader()->setStretchLastSection(true);
  m_valueView->horizontalHeader()->resizeSection(ValueTableModel::BreakpointColumn, 28);
  m_valueView->horizontalHeader()->resizeSection(ValueTableModel::StepColumn, 48);
  m_valueView->horizontalHeader()->resizeSection(ValueTableModel::NodeColumn, 200);
  m_valueView->setWordWrap(false);

  m_diagnosticsView->setModel(m_diagnostics);
  m_diagnosticsView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_diagnosticsView->setSelectionMode(QAbstractItemView::SingleSelection);
  m_diagnosticsView->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_diagnosticsView->verticalHeader()->setVisible(false);
  m_diagnosticsView->horizontalHeader()->setStretchLastSection(true);
  m_diagnosticsView->setWordWrap(false);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(m_valueView);
  splitter->addWidget(m_diagnosticsView);
  splitter->setStretchFactor(0, 4);
  splitter->setStretchFactor(1, 1);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(toolBar);
  layout->addWidget(m_state);
  layout->addWidget(splitter, 1);

  // Clicking a row selects its node everywhere.
  connect(m_valueView, &QAbstractItemView::clicked, this, [this](const QModelIndex& index) {
    if (index.column() == ValueTableModel::BreakpointColumn) return; // the checkbox column
    m_session->selectNode(index.data(ValueTableModel::NodeNameRole).toString());
  });
  connect(m_diagnosticsView, &QAbstractItemView::clicked, this, [this](const QModelIndex& index) {
    const QString node = index.data(DiagnosticsModel::NodeNameRole).toString();
    if (!node.isEmpty()) m_session->selectNode(node);
  });
  connect(session, &StudioSession::selectionChanged, this, &InterpreterPanel::followSelection);
  connect(m_values, &QAbstractItemModel::rowsInserted, this, &InterpreterPanel::scrollToCurrent);
  // The diagnostics list shows only when there is something in it.
  auto showDiagnostics = [this] { m_diagnosticsView->setVisible(m_diagnostics->rowCount() > 0); };
  connect(m_diagnostics, &QAbstractItemModel::rowsInserted, this, showDiagnostics);
  connect(m_diagnostics, &QAbstractItemModel::rowsRemoved, this, showDiagnostics);
  connect(m_diagnostics, &QAbstractItemModel::modelReset, this, showDiagnostics);
  showDiagnostics();

  for (auto signal : {&StudioSession::interpreterReset, &StudioSession::interpreterFinished,
                      &StudioSession::modelLoaded, &StudioSession::graphChanged})
    connect(session, signal, this, &InterpreterPanel::updateState);
  connect(session, &StudioSession::interpreterStepped, this, &InterpreterPanel::updateState);
  connect(session, &StudioSession::interpreterFailed, this, &InterpreterPanel::updateState);
  connect(session, &StudioSession::traceFailed, this, &InterpreterPanel::updateState);
  connect(session, &StudioSession::selectionChanged, this, &InterpreterPanel::updateState);
  connect(session, &StudioSession::runningChanged, this, &InterpreterPanel::updateState);
  connect(session, &StudioSession::inputSpecsChanged, this, &InterpreterPanel::updateState);
  updateState();
}

QAction* InterpreterPanel::makeAction(const QString& id, const QString& text, const QString& tip) {
  auto* a = new QAction(text, this);
  a->setObjectName(id);
  a->setToolTip(tip);
  m_actions << a;
  return a;
}

QAction* InterpreterPanel::action(const QString& id) const {
  for (QAction* a : m_actions)
    if (a->objectName() == id) return a;
  return nullptr;
}

void InterpreterPanel::updateState() {
  using State = StudioSession::InterpreterState;
  const bool hasGraph = m_session->graph() != nullptr;
  const State state = m_session->interpreterState();
  const bool running = m_session->isRunning();
  const bool canRun = hasGraph && !running && (state == State::NotStarted || state == State::Paused);
  const bool hasSelection = !m_session->selectedNode().isEmpty();
  action(QStringLiteral("start"))->setEnabled(m_session->model() != nullptr);
  action(QStringLiteral("start"))
      ->setText(state == State::NotStarted ? QStringLiteral("Start") : QStringLiteral("Restart"));
  action(QStringLiteral("step"))->setEnabled(canRun);
  action(QStringLiteral("continue"))->setEnabled(canRun);
  action(QStringLiteral("runToSelected"))->setEnabled(hasGraph && hasSelection && !running);
  action(QStringLiteral("stop"))->setEnabled(state != State::NotStarted);
  action(QStringLiteral("stop"))
      ->setToolTip(running ? QStringLiteral("interrupt the run (the interpreter stays paused)")
                           : QStringLiteral("drop the interpreter state"));
  action(QStringLiteral("breakpoint"))->setEnabled(hasSelection);
  const std::size_t inputs = m_session->inputSpecs().size();
  action(QStringLiteral("inputs"))->setEnabled(m_session->model() != nullptr);
  action(QStringLiteral("inputs"))
      ->setText(m_session->model() && inputs == 0 ? QStringLiteral("Inputs… (none)")
                                                  : QStringLiteral("Inputs…"));

  const int executed = m_session->executedNodes().size();
  QString text;
  switch (state) {
  case State::NotStarted:
    text = QStringLiteral("not started");
    break;
  case State::Paused:
    text =
        running
            ? QStringLiteral("running… %1 of %2 nodes executed").arg(executed).arg(m_session->totalNodes())
            : QStringLiteral("paused before '%1' (%2 executed)").arg(m_session->currentNode()).arg(executed);
    break;
  case State::Finished:
    text = QStringLiteral("finished (%1 executed)").arg(executed);
    break;
  case State::Failed:
    text = m_session->failedNode().isEmpty()
               ? QStringLiteral("could not start: %1")
                     .arg(m_session->lastError().section(QLatin1Char('\n'), 0, 0))
               : QStringLiteral("failed at '%1': %2")
                     .arg(m_session->failedNode(), m_session->lastError().section(QLatin1Char('\n'), 0, 0));
    break;
  }
  m_state->setText(text);
  m_state->setToolTip(state == State::Failed ? m_session->lastError() : QString());
}

QString InterpreterPanel::stateText() const {
  return m_state->text();
}

void InterpreterPanel::followSelection(const QString& node) {
  if (m_syncing) return;
  const int row = node.isEmpty() ? -1 : m_values->rowOfNode(node);
  m_syncing = true;
  if (row < 0) {
    m_valueView->clearSelection();
  } else {
    const QModelIndex index = m_values->index(row, ValueTableModel::NodeColumn);
    m_valueView->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                              QItemSelectionModel::Rows);
    m_valueView->scrollTo(index.siblingAtColumn(0)); // column 0 keeps the view scrolled to the left
  }
  m_syncing = false;
}

void InterpreterPanel::scrollToCurrent() {
  // New rows may include the selected node: select it, then show the newest row.
  followSelection(m_session->selectedNode());
  // scrollToBottom lays out the rows just inserted first; scrollTo would clamp to the old range.
  if (m_values->rowCount() > 0) m_valueView->scrollToBottom();
}

} // namespace lattice::studio
