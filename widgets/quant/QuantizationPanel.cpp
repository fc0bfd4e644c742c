// QuantizationPanel: the dock's controls, table and charts over QuantizationState.
#include "quant/QuantizationPanel.h"

#include "StudioSession.h"
#include "numeric/NumericOverlay.h"
#include "numeric/NumericRun.h"
#include "panels/InputSpecEditor.h"
#include "quant/QuantCharts.h"
#include "quant/QuantFormatMenu.h"
#include "quant/QuantLayersModel.h"
#include "quant/QuantOverlay.h"
#include "quant/QuantizationState.h"

#include <QActionGroup>
#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>

namespace lattice::studio {

namespace {

QString toQ(const std::string& s) { return QString::fromStdString(s); }

/// The plan column's editor: a combo box of the row's formats.
class FormatDelegate : public QStyledItemDelegate {
public:
  FormatDelegate(QuantizationState* state, QSortFilterProxyModel* proxy, QObject* parent)
      : QStyledItemDelegate(parent), m_state(state), m_proxy(proxy) {}

  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&, const QModelIndex& index) const override {
    auto* combo = new QComboBox(parent);
    for (const WeightFormat& f : m_state->choicesFor(m_proxy->mapToSource(index).row()))
      combo->addItem(toQ(f.name()));
    // A choice applies at once (one undo step), not when the editor closes.
    connect(combo, &QComboBox::activated, combo, [this, combo] {
      auto* self = const_cast<FormatDelegate*>(this);
      Q_EMIT self->commitData(combo);
      Q_EMIT self->closeEditor(combo);
    });
    return combo;
  }
  void setEditorData(QWidget* editor, const QModelIndex& index) const override {
    auto* combo = static_cast<QComboBox*>(editor);
    combo->setCurrentIndex(std::max(0, combo->findText(index.data(Qt::EditRole).toString())));
  }
  void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override {
    const QString chosen = static_cast<QComboBox*>(editor)->currentText();
    if (chosen != index.data(Qt::EditRole).toString()) model->setData(index, chosen, Qt::EditRole);
  }

private:
  QuantizationState* m_state;
  QSortFilterProxyModel* m_proxy;
};

constexpr double kLadder[] = {1.0, 2.0, 5.0};

} // namespace

// --- LogSpinBox ----------------------------------------------------------------------------------

LogSpinBox::LogSpinBox(QWidget* parent) : QDoubleSpinBox(parent) {
  setDecimals(12);
  setRange(1e-9, 10.0);
  setKeyboardTracking(false);
  setAccelerated(true);
}

void LogSpinBox::stepBy(int steps) {
  // Position on the 1-2-5 ladder: decade · 3 + rung.
  const double v = std::max(value(), minimum());
  const double decade = std::floor(std::log10(v) + 1e-9);
  const double mantissa = v / std::pow(10.0, decade);
  int rung = 0;
  for (int i = 0; i < 3; ++i)
    if (mantissa + 1e-9 >= kLadder[i]) rung = i;
  // A value between rungs is above its rung: the first step down lands on that rung.
  const bool between = std::abs(mantissa - kLadder[rung]) > 1e-6;
  const long long here = static_cast<long long>(decade) * 3 + rung;
  const long long position = here + steps + (between && steps < 0 ? 1 : 0);
  const long long d = position >= 0 ? position / 3 : -((-position + 2) / 3);
  const int r = int(position - d * 3);
  setValue(std::clamp(kLadder[r] * std::pow(10.0, double(d)), minimum(), maximum()));
}

QAbstractSpinBox::StepEnabled LogSpinBox::stepEnabled() const {
  StepEnabled e;
  if (value() > minimum() * 1.0000001) e |= StepDownEnabled;
  if (value() < maximum() * 0.9999999) e |= StepUpEnabled;
  return e;
}

QString LogSpinBox::textFromValue(double value) const {
  return QString::number(value, 'g', 3);
}

double LogSpinBox::valueFromText(const QString& text) const {
  return text.trimmed().toDouble();
}

QValidator::State LogSpinBox::validate(QString& text, int&) const {
  bool ok = false;
  const double v = text.trimmed().toDouble(&ok);
  if (ok && v >= minimum() && v <= maximum()) return QValidator::Acceptable;
  return QValidator::Intermediate;
}

// --- the panel -----------------------------------------------------------------------------------

QuantizationPanel::QuantizationPanel(QuantizationState* state, QWidget* parent)
    : QWidget(parent), m_state(state), m_model(new QuantLayersModel(state, this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(4);

  // The inputs, and what they are worth.
  auto* inputsRow = new QHBoxLayout();
  m_inputs = new QLabel(this);
  m_inputs->setObjectName(QStringLiteral("quantInputs"));
  m_inputs->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_inputs->setWordWrap(true); // a long file name wraps instead of widening the dock
  auto* chooseInputs = new QPushButton(tr("Inputs…"), this);
  chooseInputs->setToolTip(tr("Choose the inputs the analysis runs on (Debug ▸ Run Inputs…): recorded, a file or "
                              "random points"));
  connect(chooseInputs, &QPushButton::clicked, this,
          [this] { showInputSpecDialog(m_state->session(), window(), true); });
  inputsRow->addWidget(m_inputs, 1);
  inputsRow->addWidget(chooseInputs);
  layout->addLayout(inputsRow);
  m_randomWarning = new QLabel(
      tr("⚠ Random inputs are a weak proxy for real data: sensitivities may differ on your data."), this);
  m_randomWarning->setObjectName(QStringLiteral("quantRandomWarning"));
  m_randomWarning->setWordWrap(true);
  m_randomWarning->setStyleSheet(QStringLiteral("color: #b26a00;"));
  layout->addWidget(m_randomWarning);

  // Candidates, Analyze, progress.
  m_useForExport = new QCheckBox(tr("Use plan for export"), this);
  m_useForExport->setObjectName(QStringLiteral("quantUseForExport"));
  m_useForExport->setToolTip(tr("File ▸ Export Artifact… stores each layer as the plan says"));
  m_save = new QPushButton(tr("Save Plan…"), this);
  m_load = new QPushButton(tr("Load Plan…"), this);
  m_save->setToolTip(tr("Write the plan as a JSON file lattice-cli lower --quantize-plan reads"));
  m_load->setToolTip(tr("Take each layer's format from a plan file (undoable)"));
  auto* analyzeRow = new QHBoxLayout();
  analyzeRow->addWidget(new QLabel(tr("Try:"), this));
  m_int8 = new QCheckBox(tr("int8"), this);
  m_int4 = new QCheckBox(tr("int4"), this);
  m_groupSize = new QComboBox(this);
  for (int g : {32, 64, 128}) m_groupSize->addItem(tr("group %1").arg(g), g);
  m_groupSize->setToolTip(tr("Quantization group size of the candidates (mlx-lattice takes 32, 64 or 128)"));
  analyzeRow->addWidget(m_int8);
  analyzeRow->addWidget(m_int4);
  analyzeRow->addWidget(m_groupSize);
  m_analyze = new QPushButton(tr("Analyze"), this);
  m_analyze->setObjectName(QStringLiteral("quantAnalyze"));
  m_analyze->setToolTip(tr("Measure every layer in every candidate format on the inputs (each layer alone, at the "
                           "model's outputs), then plan for the budget"));
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->setObjectName(QStringLiteral("quantCancel"));
  m_progress = new QProgressBar(this);
  m_progress->setObjectName(QStringLiteral("quantProgress"));
  m_progress->setMinimumWidth(80);
  m_progress->setMaximumWidth(220);
  m_progress->setFormat(tr("%v / %m"));
  analyzeRow->addWidget(m_analyze);
  analyzeRow->addWidget(m_cancel);
  analyzeRow->addWidget(m_progress, 1);
  analyzeRow->addStretch(1);
  layout->addLayout(analyzeRow);
  connect(m_analyze, &QPushButton::clicked, state, &QuantizationState::analyze);
  connect(m_cancel, &QPushButton::clicked, state, &QuantizationState::cancel);
  const auto candidatesEdited = [this] {
    if (m_syncing) return;
    std::vector<WeightFormat> c;
    const int g = m_groupSize->currentData().toInt();
    if (m_int4->isChecked()) c.push_back(WeightFormat::quantized(4, g));
    if (m_int8->isChecked()) c.push_back(WeightFormat::quantized(8, g));
    if (c.empty()) { // at least one: the box just unticked comes back
      updateCandidates();
      return;
    }
    m_state->setCandidates(std::move(c));
  };
  connect(m_int8, &QCheckBox::toggled, this, candidatesEdited);
  connect(m_int4, &QCheckBox::toggled, this, candidatesEdited);
  connect(m_groupSize, &QComboBox::currentIndexChanged, this, candidatesEdited);

  // The budget.
  auto* budgetRow = new QHBoxLayout();
  budgetRow->addWidget(new QLabel(tr("Budget:"), this));
  m_byError = new QRadioButton(tr("rel. L2 ≤"), this);
  m_budgetL2 = new LogSpinBox(this);
  m_budgetL2->setObjectName(QStringLiteral("quantBudget"));
  m_budgetL2->setToolTip(tr("The smallest plan whose measured relative L2 error at the outputs stays within this"));
  m_bySize = new QRadioButton(tr("size ≤"), this);
  m_budgetSize = new QDoubleSpinBox(this);
  m_budgetSize->setObjectName(QStringLiteral("quantMaxSize"));
  m_budgetSize->setRange(0.0, 1e9);
  m_budgetSize->setDecimals(1);
  m_budgetSize->setSuffix(tr(" KB"));
  m_budgetSize->setKeyboardTracking(false);
  m_budgetSize->setToolTip(tr("The most accurate plan whose weights fit in this size"));
  auto* kinds = new QButtonGroup(this);
  kinds->addButton(m_byError);
  kinds->addButton(m_bySize);
  budgetRow->addWidget(m_byError);
  budgetRow->addWidget(m_budgetL2);
  budgetRow->addSpacing(8);
  budgetRow->addWidget(m_bySize);
  budgetRow->addWidget(m_budgetSize);
  budgetRow->addStretch(1);
  layout->addLayout(budgetRow);
  m_budgetDelay = new QTimer(this);
  m_budgetDelay->setSingleShot(true);
  m_budgetDelay->setInterval(350);
  connect(m_budgetDelay, &QTimer::timeout, this, &QuantizationPanel::applyBudget);
  const auto budgetEdited = [this] {
    if (m_syncing) return;
    m_budgetL2->setEnabled(m_byError->isChecked());
    m_budgetSize->setEnabled(m_bySize->isChecked());
    m_budgetDelay->start();
  };
  connect(m_byError, &QRadioButton::toggled, this, budgetEdited);
  connect(m_budgetL2, &QDoubleSpinBox::valueChanged, this, budgetEdited);
  connect(m_budgetSize, &QDoubleSpinBox::valueChanged, this, budgetEdited);

  // The plan's figures.
  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("quantSummary"));
  m_summary->setWordWrap(true);
  m_summary->setTextFormat(Qt::RichText);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_summary);
  auto* planRow = new QHBoxLayout();
  planRow->addWidget(m_useForExport);
  planRow->addStretch(1);
  planRow->addWidget(m_save);
  planRow->addWidget(m_load);
  layout->addLayout(planRow);
  connect(m_useForExport, &QCheckBox::toggled, this, [this](bool on) {
    if (!m_syncing) m_state->setUseForExport(on);
  });
  connect(m_save, &QPushButton::clicked, this, &QuantizationPanel::savePlan);
  connect(m_load, &QPushButton::clicked, this, &QuantizationPanel::loadPlan);

  // The table beside the charts.
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->setChildrenCollapsible(false);
  m_proxy = new QSortFilterProxyModel(this);
  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(Qt::UserRole);
  m_table = new QTableView(split);
  m_table->setObjectName(QStringLiteral("quantTable"));
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(-1, Qt::AscendingOrder); // the model's order until a header is clicked
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::SelectedClicked |
                           QAbstractItemView::EditKeyPressed);
  m_table->verticalHeader()->hide();
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setItemDelegate(new FormatDelegate(state, m_proxy, m_table));
  m_table->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_table, &QTableView::customContextMenuRequested, this, [this](const QPoint& pos) {
    const QModelIndex index = m_table->indexAt(pos);
    if (!index.isValid()) return;
    QMenu* menu = createRowMenu(m_proxy->mapToSource(index).row(), this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(m_table->viewport()->mapToGlobal(pos));
  });
  connect(m_model, &QAbstractItemModel::modelReset, this, [this] { m_table->resizeColumnsToContents(); });
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &QuantizationPanel::onRowSelected);
  m_charts = new QTabWidget(split);
  m_charts->setObjectName(QStringLiteral("quantCharts"));
  m_sensitivity = new QuantSensitivityChart(state);
  auto* scroll = new QScrollArea();
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(m_sensitivity);
  m_charts->addTab(scroll, tr("Sensitivity"));
  m_charts->setTabToolTip(0, tr("Relative L2 error at the model's outputs with only that layer quantized, per "
                                "candidate (log scale)"));
  m_pareto = new QuantParetoChart(state);
  m_charts->addTab(m_pareto, tr("Pareto"));
  m_charts->setTabToolTip(1, tr("Every plan the search measured: weight bytes against measured relative L2 error, "
                                "the Pareto front joined, the current plan marked"));
  split->addWidget(m_table);
  split->addWidget(m_charts);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);

  StudioSession* session = state->session();
  connect(state, &QuantizationState::jobChanged, this, &QuantizationPanel::updateJob);
  connect(state, &QuantizationState::progressed, this, &QuantizationPanel::updateJob);
  for (auto signal : {&QuantizationState::analysisChanged, &QuantizationState::planChanged,
                      &QuantizationState::measurementChanged})
    connect(state, signal, this, &QuantizationPanel::updateSummary);
  connect(state, &QuantizationState::failed, this, &QuantizationPanel::updateSummary);
  // A size budget starts at the all-int8 size.
  connect(state, &QuantizationState::analysisChanged, this, [this] {
    if (m_budgetSize->value() > 0.0 || m_state->int8Bytes() == 0) return;
    m_syncing = true;
    m_budgetSize->setValue(double(m_state->int8Bytes()) / 1024.0);
    m_syncing = false;
  });
  connect(state, &QuantizationState::settingsChanged, this, [this] {
    updateCandidates();
    readBudget();
  });
  if (state->numericRun())
    connect(state->numericRun(), &NumericRun::inputChoiceChanged, this, &QuantizationPanel::updateInputs);
  connect(session, &StudioSession::modelLoaded, this, &QuantizationPanel::updateInputs);
  connect(session, &StudioSession::modelLoaded, this, &QuantizationPanel::updateJob);
  connect(session, &StudioSession::selectionChanged, this, [this](const QString& node) {
    const int layer = m_state->layerOfNode(node);
    if (layer < 0) return;
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(layer, 0));
    m_syncing = true;
    m_table->selectRow(index.row());
    m_table->scrollTo(index);
    m_syncing = false;
  });
  updateCandidates();
  readBudget();
  updateInputs();
  updateJob();
  updateSummary();
}

QMenu* QuantizationPanel::createRowMenu(int row, QWidget* parent) {
  auto* menu = new QMenu(parent);
  menu->setObjectName(QStringLiteral("quantRowMenu"));
  if (!m_state->sensitivity() || row < 0 || row >= int(m_state->formats().size())) return menu;
  addLayerFormatActions(menu, m_state, row, QStringLiteral("quant."));
  return menu;
}

void QuantizationPanel::showChart(int index) {
  m_charts->setCurrentIndex(index);
}

void QuantizationPanel::updateInputs() {
  m_inputs->setText(tr("Inputs: %1").arg(m_state->describeInputs()));
  m_randomWarning->setVisible(m_state->randomInputs());
}

void QuantizationPanel::updateCandidates() {
  m_syncing = true;
  bool int8 = false, int4 = false;
  int group = 32;
  for (const WeightFormat& f : m_state->candidates()) {
    (f.bits == 8 ? int8 : int4) = true;
    group = int(f.groupSize);
  }
  m_int8->setChecked(int8);
  m_int4->setChecked(int4);
  m_groupSize->setCurrentIndex(std::max(0, m_groupSize->findData(group)));
  m_syncing = false;
}

void QuantizationPanel::readBudget() {
  m_syncing = true;
  const PlanBudget& b = m_state->budget();
  m_byError->setChecked(b.kind == PlanBudget::Kind::RelativeL2);
  m_bySize->setChecked(b.kind == PlanBudget::Kind::Bytes);
  m_budgetL2->setValue(b.relL2);
  m_budgetSize->setValue(double(b.bytes) / 1024.0);
  m_budgetL2->setEnabled(m_byError->isChecked());
  m_budgetSize->setEnabled(m_bySize->isChecked());
  m_syncing = false;
}

void QuantizationPanel::applyBudget() {
  PlanBudget b = m_state->budget();
  b.kind = m_bySize->isChecked() ? PlanBudget::Kind::Bytes : PlanBudget::Kind::RelativeL2;
  b.relL2 = m_budgetL2->value();
  // A size budget starts from the all-int8 size once there is an analysis.
  if (b.kind == PlanBudget::Kind::Bytes && m_budgetSize->value() <= 0.0 && m_state->int8Bytes() > 0) {
    m_syncing = true;
    m_budgetSize->setValue(double(m_state->int8Bytes()) / 1024.0);
    m_syncing = false;
  }
  b.bytes = std::uint64_t(std::llround(m_budgetSize->value() * 1024.0));
  m_state->setBudget(b);
}

void QuantizationPanel::updateJob() {
  const bool busy = m_state->isBusy();
  const bool model = m_state->session()->model() != nullptr;
  m_analyze->setEnabled(!busy && model);
  m_cancel->setEnabled(busy);
  m_progress->setVisible(busy);
  if (busy) {
    const int total = m_state->progressTotal();
    m_progress->setMaximum(std::max(total, 0)); // 0: busy indicator (the dense reference run)
    m_progress->setValue(total > 0 ? m_state->progressDone() : 0);
  }
  updateSummary();
}

void QuantizationPanel::updateSummary() {
  const QLocale locale;
  m_useForExport->setEnabled(m_state->hasPlan());
  m_save->setEnabled(m_state->hasPlan());
  m_load->setEnabled(m_state->hasPlan());
  {
    m_syncing = true;
    m_useForExport->setChecked(m_state->useForExport());
    m_syncing = false;
  }
  QString text;
  const QuantSensitivity* s = m_state->sensitivity();
  switch (m_state->runningJob()) {
  case QuantizationState::Job::Analyze:
    text = m_state->progressTotal() > 0 ? tr("Measuring each layer in each candidate format…")
                                        : tr("Running the dense model on the inputs…");
    break;
  case QuantizationState::Job::Search:
    text = tr("Searching the plan for the budget…");
    break;
  default:
    break;
  }
  if (s) {
    const std::uint64_t plan = m_state->planBytes(), dense = m_state->denseBytes(), int8 = m_state->int8Bytes();
    QString line = tr("<b>Plan %1</b> (%2) · dense %3 · all int8 %4")
                       .arg(humanSize(plan), m_state->planSummary().toHtmlEscaped(), humanSize(dense), humanSize(int8));
    if (const PlanMeasurement* m = m_state->measurement())
      line += tr(" · measured rel. L2 <b>%1</b>, Pearson %2").arg(formatFigure(m->error.relL2), formatFigure(m->error.pearson));
    else
      line += m_state->isBusy() ? tr(" · measuring…") : tr(" · not measured (Analyze again)");
    if (const PlanSearch* search = m_state->lastSearch(); search && !search->met && m_state->measurement() &&
                                                          m_state->measurement()->formats == search->chosen.formats)
      line += tr(" · <span style='color:#c62828'>the budget cannot be met</span>");
    text = text.isEmpty() ? line : text + QStringLiteral("<br>") + line;
  } else if (text.isEmpty()) {
    text = m_state->session()->model() ? tr("Analyze to measure how much each layer's quantization changes the outputs.")
                                       : tr("Open a model to plan its quantization.");
  }
  if (m_state->wasCancelled() && !s) text = tr("Analysis cancelled.");
  if (!m_state->lastError().isEmpty())
    text += QStringLiteral("<br><span style='color:#c62828'>%1</span>").arg(m_state->lastError().toHtmlEscaped());
  m_summary->setText(text);
}

void QuantizationPanel::onRowSelected() {
  if (m_syncing) return;
  const QModelIndexList rows = m_table->selectionModel()->selectedRows();
  if (rows.isEmpty() || !m_state->sensitivity()) return;
  const int layer = m_proxy->mapToSource(rows.front()).row();
  m_state->session()->selectNode(toQ(m_state->sensitivity()->layers[std::size_t(layer)].node));
}

void QuantizationPanel::savePlan() {
  QSettings settings;
  const QString dir = settings.value(QStringLiteral("quantization/planDirectory"), QDir::homePath()).toString();
  const QString path = QFileDialog::getSaveFileName(this, tr("Save Quantization Plan"),
                                                    QDir(dir).filePath(QStringLiteral("plan.json")),
                                                    tr("Quantization plans (*.json)"));
  if (path.isEmpty()) return;
  settings.setValue(QStringLiteral("quantization/planDirectory"), QFileInfo(path).absolutePath());
  if (const QString error = m_state->savePlan(path); !error.isEmpty())
    QMessageBox::critical(this, tr("Save Plan"), error);
}

void QuantizationPanel::loadPlan() {
  QSettings settings;
  const QString dir = settings.value(QStringLiteral("quantization/planDirectory"), QDir::homePath()).toString();
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Load Quantization Plan"), dir, tr("Quantization plans (*.json)"));
  if (path.isEmpty()) return;
  settings.setValue(QStringLiteral("quantization/planDirectory"), QFileInfo(path).absolutePath());
  if (const QString error = m_state->loadPlan(path); !error.isEmpty())
    QMessageBox::critical(this, tr("Load Plan"), error);
}

} // namespace lattice::studio
