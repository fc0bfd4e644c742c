// RunInputsEditor: the numeric run's input choice, applied as it is edited.
#include "numeric/RunInputsEditor.h"

#include <QButtonGroup>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>
#include <cstdint>
#include <functional>

namespace lattice::studio {

RunInputsEditor::RunInputsEditor(NumericRun* run, QWidget* parent) : QWidget(parent), m_run(run) {
  setObjectName(QStringLiteral("runInputsEditor"));
  m_source = new QButtonGroup(this);
  auto* random = new QRadioButton(tr("&Random points on surfaces, from the artifact's inputs"), this);
  auto* file = new QRadioButton(tr("&File (inputs.safetensors, as lattice-cli run --inputs reads it)"), this);
  auto* recorded = new QRadioButton(tr("Re&corded inputs of the archive (its inputs.safetensors)"), this);
  random->setObjectName(QStringLiteral("sourceRandom"));
  file->setObjectName(QStringLiteral("sourceFile"));
  recorded->setObjectName(QStringLiteral("sourceRecorded"));
  m_source->addButton(random, int(NumericRun::InputSource::Random));
  m_source->addButton(file, int(NumericRun::InputSource::File));
  m_source->addButton(recorded, int(NumericRun::InputSource::Recorded));

  m_points = new QSpinBox(this);
  m_points->setObjectName(QStringLiteral("points"));
  m_points->setRange(1, 10'000'000);
  m_points->setGroupSeparatorShown(true);
  m_seed = new QSpinBox(this);
  m_seed->setObjectName(QStringLiteral("seed"));
  m_seed->setRange(0, 1 << 30);
  m_batch = new QSpinBox(this);
  m_batch->setObjectName(QStringLiteral("batch"));
  m_batch->setRange(1, 4096);
  // One row: the dialog stays short enough for a small screen.
  auto* randomForm = new QHBoxLayout;
  for (const auto& [text, box] : {std::pair{tr("&Points per sparse input:"), m_points}, std::pair{tr("S&eed:"), m_seed},
                                  std::pair{tr("&Batch size:"), m_batch}}) {
    auto* label = new QLabel(text, this);
    label->setBuddy(box);
    randomForm->addWidget(label);
    randomForm->addWidget(box);
    randomForm->addSpacing(8);
  }
  randomForm->addStretch(1);

  // A file field with its Browse… button; a file chosen there is applied like an edit.
  const auto fileField = [this](QLineEdit* edit, const QString& title, const std::function<void()>& applied) {
    auto* browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this, edit, title, applied] {
      const QString path = QFileDialog::getOpenFileName(this, title, edit->text(),
                                                        tr("Safetensors (*.safetensors);;All files (*)"));
      if (path.isEmpty()) return;
      edit->setText(path);
      applied();
    });
    auto* row = new QHBoxLayout;
    row->addWidget(edit, 1);
    row->addWidget(browse);
    return row;
  };
  m_file = new QLineEdit(this);
  m_file->setObjectName(QStringLiteral("file"));
  QHBoxLayout* fileRow = fileField(m_file, tr("Inputs"), [this] { apply(); });

  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("status"));
  m_status->setWordWrap(true);

  auto* save = new QPushButton(tr("&Save Inputs…"), this);
  save->setObjectName(QStringLiteral("saveInputs"));
  save->setToolTip(tr("Write these inputs as an inputs.safetensors for lattice-cli run --inputs"));
  connect(save, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Inputs"), QStringLiteral("inputs.safetensors"),
                                                      tr("Safetensors (*.safetensors)"));
    if (path.isEmpty()) return;
    const QString error = saveTo(path);
    m_status->setText(error.isEmpty() ? tr("Inputs written to %1").arg(path) : error);
  });
  // The golden for a run that has no recording: an expected-outputs file.
  m_expected = new QLineEdit(this);
  m_expected->setObjectName(QStringLiteral("expectedFile"));
  m_expected->setClearButtonEnabled(true);
  const auto applyExpected = [this] { m_run->setExpectedOutputs(m_expected->text()); };
  connect(m_expected, &QLineEdit::editingFinished, this, applyExpected);
  auto* expectedLabel = new QLabel(tr("E&xpected outputs:"), this);
  expectedLabel->setBuddy(m_expected);
  QHBoxLayout* expectedRow = fileField(m_expected, tr("Expected Outputs"), applyExpected);
  expectedRow->insertWidget(0, expectedLabel);

  // How much of the run's values the panels keep (NumericRun::memoryBudget).
  auto* budget = new QSpinBox(this);
  budget->setObjectName(QStringLiteral("memoryBudget"));
  budget->setRange(16, 1 << 20);
  budget->setSuffix(tr(" MB"));
  budget->setGroupSeparatorShown(true);
  budget->setValue(int(std::min<std::uint64_t>(NumericRun::memoryBudget() >> 20, std::uint64_t(budget->maximum()))));
  budget->setToolTip(tr("Values the run no longer needs are kept for the panels up to this size; older ones are "
                        "dropped and computed again when you select their node. Applies from the next run. "
                        "Default: %1 MB (0.5% of physical memory, at least 128 MB).")
                         .arg(NumericRun::defaultMemoryBudget() >> 20));
  connect(budget, &QSpinBox::editingFinished, this,
          [budget] { NumericRun::setMemoryBudget(std::uint64_t(budget->value()) << 20); });
  auto* budgetLabel = new QLabel(tr("&Memory for values:"), this);
  budgetLabel->setBuddy(budget);
  auto* budgetRow = new QHBoxLayout;
  budgetRow->addWidget(budgetLabel);
  budgetRow->addWidget(budget);
  budgetRow->addSpacing(12);
  budgetRow->addWidget(m_status, 1);
  budgetRow->addWidget(save);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(random);
  layout->addLayout(randomForm);
  layout->addWidget(file);
  layout->addLayout(fileRow);
  layout->addWidget(recorded);
  layout->addLayout(expectedRow);
  layout->addLayout(budgetRow);
  connect(m_source, &QButtonGroup::idClicked, this, [this] {
    updateEnabled();
    apply();
  });
  for (QSpinBox* box : {m_points, m_seed, m_batch})
    connect(box, &QSpinBox::editingFinished, this, &RunInputsEditor::apply);
  connect(m_file, &QLineEdit::editingFinished, this, &RunInputsEditor::apply);
  connect(run, &NumericRun::inputChoiceChanged, this, &RunInputsEditor::showChoice);
  showChoice();
}

void RunInputsEditor::showChoice() {
  if (m_showing) return;
  m_showing = true;
  const NumericRun::InputChoice c = m_run->inputChoice();
  // The recorded inputs are offered only by a model that has them.
  m_source->button(int(NumericRun::InputSource::Recorded))->setEnabled(m_run->hasRecordedInputs());
  m_source->button(int(NumericRun::InputSource::Recorded))->setVisible(m_run->hasRecordedInputs());
  m_expected->setPlaceholderText(m_run->hasRecordedActivations()
                                     ? tr("none: the archive's recorded activations are the golden")
                                     : tr("none: the run is not checked"));
  m_source->button(int(c.source))->setChecked(true);
  m_points->setValue(int(std::min<qint64>(c.points, m_points->maximum())));
  m_seed->setValue(int(std::min<quint64>(c.seed, quint64(m_seed->maximum()))));
  m_batch->setValue(int(std::min<qint64>(c.batchSize, m_batch->maximum())));
  m_file->setText(c.file);
  m_expected->setText(m_run->expectedOutputs());
  updateEnabled();
  m_showing = false;
}

NumericRun::InputChoice RunInputsEditor::choice() const {
  NumericRun::InputChoice c;
  c.source = static_cast<NumericRun::InputSource>(m_source->checkedId());
  c.points = m_points->value();
  c.seed = static_cast<quint64>(m_seed->value());
  c.batchSize = m_batch->value();
  c.file = m_file->text();
  return c;
}

QString RunInputsEditor::saveTo(const QString& path) {
  m_run->setInputChoice(choice());
  return m_run->saveInputs(path);
}

void RunInputsEditor::apply() {
  if (m_showing) return;
  const NumericRun::InputChoice c = choice();
  if (c.source == NumericRun::InputSource::File && c.file.isEmpty()) {
    m_status->setText(tr("Choose an inputs file."));
    return;
  }
  m_status->clear();
  m_showing = true; // the run's inputChoiceChanged: the controls already show it
  m_run->setInputChoice(c);
  m_showing = false;
}

QString RunInputsEditor::statusText() const { return m_status->text(); }

void RunInputsEditor::updateEnabled() {
  const auto source = static_cast<NumericRun::InputSource>(m_source->checkedId());
  for (QWidget* w : {static_cast<QWidget*>(m_points), static_cast<QWidget*>(m_seed), static_cast<QWidget*>(m_batch)})
    w->setEnabled(source == NumericRun::InputSource::Random);
  m_file->setEnabled(source == NumericRun::InputSource::File);
}

} // namespace lattice::studio
