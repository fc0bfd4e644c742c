// ValuesPanel: the selected node's concrete value, time and error against the golden.
#include "numeric/ValuesPanel.h"

#include "StudioSession.h"
#include "charts/DataFlowChart.h"
#include "numeric/NumericRun.h"
#include "numeric/ValueInspector.h"

#include <QComboBox>
#include <QLabel>
#include <QLocale>
#include <QSplitter>
#include <QVBoxLayout>

#include <cmath>

#include <variant>

namespace lattice::studio {

ValuesPanel::ValuesPanel(StudioSession* session, NumericRun* run, QWidget* parent)
    : QWidget(parent), m_session(session), m_run(run) {
  setObjectName(QStringLiteral("valuesPanel"));
  m_header = new QLabel(this);
  m_header->setObjectName(QStringLiteral("valuesHeader"));
  m_header->setWordWrap(true);
  m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_items = new QComboBox(this);
  m_items->setObjectName(QStringLiteral("valueItems"));
  m_inspector = new ValueInspector(this);
  m_chart = new DataFlowChart(this);
  m_chart->setTitle(tr("Error against the recorded activations, along the data flow"));
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(m_inspector);
  splitter->addWidget(m_chart);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_header);
  layout->addWidget(m_items);
  layout->addWidget(splitter, 1);
  // A dock shares its area with the other panels: it must not force the window taller than the
  // inspector and the chart together want.
  setMinimumSize(200, 120);
  connect(m_items, &QComboBox::currentIndexChanged, this, &ValuesPanel::showItem);
  connect(session, &StudioSession::selectionChanged, this, &ValuesPanel::refresh);
  connect(session, &StudioSession::interpreterReset, this, &ValuesPanel::refresh);
  connect(run, &NumericRun::valuesChanged, this, [this] {
    refreshChart();
    refresh();
  });
  connect(run, &NumericRun::stateChanged, this, &ValuesPanel::refresh);
  connect(m_chart, &DataFlowChart::pointClicked, this, [this](int index) {
    if (index >= 0 && index < m_chartNodes.size()) m_session->selectNode(m_chartNodes[index]);
  });
  refreshChart();
  refresh();
}

QString ValuesPanel::headerText() const { return m_header->text(); }

QString ValuesPanel::shownNode() const {
  if (!m_session->selectedNode().isEmpty()) return m_session->selectedNode();
  return m_session->executedNodes().isEmpty() ? QString() : m_session->executedNodes().back();
}

void ValuesPanel::refresh() {
  const QString node = shownNode();
  m_chart->setCurrentIndex(m_chartNodes.indexOf(node));
  m_items->blockSignals(true);
  m_items->clear();
  m_items->blockSignals(false);
  m_items->hide();
  m_header->setToolTip(QString());
  if (node.isEmpty()) {
    m_header->setText(tr("Select a node (or step) to see its value."));
    m_inspector->setMessage(tr("No node selected."));
    return;
  }
  if (m_run->state() == NumericRun::State::Failed && m_run->failedNode() == node) {
    m_header->setText(tr("<b>%1</b>: the run stopped here").arg(node.toHtmlEscaped()));
    m_inspector->setMessage(m_run->lastError());
    return;
  }
  const auto values = m_run->valuesOf(node);
  QString header = QStringLiteral("<b>%1</b>").arg(node.toHtmlEscaped());
  QStringList differences;
  const double ms = m_run->nodeMs(node);
  if (ms >= 0.0) header += tr(" · %1 ms").arg(QLocale().toString(ms, 'f', 3));
  if (const RecordingCheck* check = m_run->recordingCheck()) {
    for (const NodeCheck& c : check->nodes) {
      if (QString::fromStdString(c.ref.node) != node) continue;
      header += QStringLiteral(" · %1: ").arg(QString::fromStdString(c.ref.name).toHtmlEscaped());
      const bool measured = std::isfinite(c.shownError());
      if (measured)
        header += tr("relative L2 %1, Pearson %2").arg(c.divergence.relL2, 0, 'g', 3).arg(c.divergence.pearson, 0, 'g', 4);
      if (!c.problem.empty())
        header += (measured ? QStringLiteral(" (%1)") : QStringLiteral("%1"))
                      .arg(QString::fromStdString(c.problem).toHtmlEscaped());
      if (c.exceeds && !c.explained())
        header += tr(" <span style='color:#c62828'>(over %1)</span>").arg(check->tolerance);
      // The rule's sentence is long: the header names it, its tooltip reads it whole.
      if (!c.difference.empty()) {
        header += tr("<br><span style='color:#8a6d00'>Known difference (%1): torch-lattice and mlx-lattice "
                     "compute different things here by design</span>")
                      .arg(QString::fromStdString(c.differenceRule));
        differences << QString::fromStdString(c.difference);
      }
      else if (!c.inheritedFrom.empty())
        header += tr("<br><span style='color:#8a6d00'>Follows from the known difference at %1</span>")
                      .arg(QString::fromStdString(c.inheritedFrom).toHtmlEscaped());
    }
  }
  m_header->setText(header);
  m_header->setToolTip(differences.join(QStringLiteral("\n\n")));
  if (values.empty()) {
    m_inspector->setMessage(m_run->state() == NumericRun::State::Empty
                                ? tr("No values yet: Debug ▸ Run on Inputs (Ctrl+R), or step with Numeric Stepping on.")
                                : tr("This node has no tensor value in the artifact."));
    return;
  }
  for (const auto& [name, value] : values) m_items->addItem(name);
  m_items->setVisible(values.size() > 1);
  showItem(0);
}

void ValuesPanel::showItem(int index) {
  const auto values = m_run->valuesOf(shownNode());
  if (index < 0 || index >= int(values.size())) return;
  const auto& [name, value] = values[std::size_t(index)];
  if (std::holds_alternative<std::monostate>(value) && m_run->isDropped(shownNode())) {
    m_inspector->setMessage(tr("Computing %1 again… (the run keeps values within its memory budget, "
                               "Debug ▸ Run Inputs…)").arg(name));
    m_run->recompute(shownNode());
  } else if (std::holds_alternative<std::monostate>(value))
    m_inspector->setMessage(tr("%1 is not computed yet: step on, or Run on Inputs.").arg(name));
  else
    m_inspector->setValue(name, value);
}

void ValuesPanel::refreshChart() {
  m_chartNodes.clear();
  const RecordingCheck* check = m_run->recordingCheck();
  // Recorded activations are spoken of only for a model that has them. A message alone takes
  // the room of its lines, not a chart's.
  m_chart->setMaximumHeight(check ? QWIDGETSIZE_MAX : fontMetrics().height() * 5 + 16);
  if (!check) {
    m_chart->setTitle(m_run->hasRecordedActivations() ? tr("Error against the recorded activations, along the data flow")
                                                      : tr("Error against the golden, along the data flow"));
    m_chart->setValues({});
    m_chart->setMessage(m_run->hasRecordedActivations()
                            ? tr("Run on the recorded inputs to compare every node with PyTorch.")
                            : tr("No golden: choose an expected-outputs file in Debug ▸ Run Inputs… to check "
                                 "the outputs of a run."));
    return;
  }
  m_chart->setTitle(tr("Error against the %1, along the data flow").arg(m_run->goldenDescription()));
  std::vector<DataFlowChart::Point> points;
  for (const NodeCheck& c : check->nodes) {
    points.emplace_back(QString::fromStdString(c.ref.name), c.shownError());
    m_chartNodes << QString::fromStdString(c.ref.node);
  }
  m_chart->setMessage(QString());
  m_chart->setValues(std::move(points), check->tolerance);
  m_chart->setCurrentIndex(m_chartNodes.indexOf(m_session->selectedNode()));
}

} // namespace lattice::studio
