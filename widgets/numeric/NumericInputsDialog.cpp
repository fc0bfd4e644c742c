// NumericInputsDialog: the numeric run's input choice.
#include "numeric/NumericInputsDialog.h"

#include <QButtonGroup>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace lattice::studio {

NumericInputsDialog::NumericInputsDialog(NumericRun* run, QWidget* parent) : QDialog(parent), m_run(run) {
  setWindowTitle(tr("Run Inputs"));
  setObjectName(QStringLiteral("numericInputsDialog"));
  const NumericRun::InputChoice choice = run->inputChoice();
  m_source = new QButtonGroup(this);
  auto* random = new QRadioButton(tr("&Random points on surfaces, from the artifact's inputs"), this);
  auto* file = new QRadioButton(tr("&File (inputs.safetensors, as lattice-cli run --inputs reads it)"), this);
  auto* recorded = new QRadioButton(tr("Re&corded inputs of the archive (exported with --record-activations)"), this);
  random->setObjectName(QStringLiteral("sourceRandom"));
  file->setObjectName(QStringLiteral("sourceFile"));
  recorded->setObjectName(QStringLiteral("sourceRecorded"));
  m_source->addButton(random, int(NumericRun::InputSource::Random));
  m_source->addButton(file, int(NumericRun::InputSource::File));
  m_source->addButton(recorded, int(NumericRun::InputSource::Recorded));
  recorded->setEnabled(run->hasRecordedInputs());
  m_source->button(int(choice.source))->setChecked(true);

  m_points = new QSpinBox(this);
  m_points->setObjectName(QStringLiteral("points"));
  m_points->setRange(1, 10'000'000);
  m_points->setGroupSeparatorShown(true);
  m_points->setValue(int(choice.points));
  m_seed = new QSpinBox(this);
  m_seed->setObjectName(QStringLiteral("seed"));
  m_seed->setRange(0, 1 << 30);
  m_seed->setValue(int(choice.seed));
  m_batch = new QSpinBox(this);
  m_batch->setObjectName(QStringLiteral("batch"));
  m_batch->setRange(1, 4096);
  m_batch->setValue(int(choice.batchSize));
  auto* randomForm = new QFormLayout;
  randomForm->addRow(tr("Points per sparse input:"), m_points);
  randomForm->addRow(tr("Seed:"), m_seed);
  randomForm->addRow(tr("Batch size:"), m_batch);

  m_file = new QLineEdit(choice.file, this);
  m_file->setObjectName(QStringLiteral("file"));
  auto* browse = new QPushButton(tr("Browse…"), this);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Inputs"), m_file->text(),
                                                      tr("Safetensors (*.safetensors);;All files (*)"));
    if (!path.isEmpty()) m_file->setText(path);
  });
  auto* fileRow = new QHBoxLayout;
  fileRow->addWidget(m_file, 1);
  fileRow->addWidget(browse);

  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("status"));
  m_status->setWordWrap(true);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  QPushButton* save = buttons->addButton(tr("&Save Inputs…"), QDialogButtonBox::ActionRole);
  save->setObjectName(QStringLiteral("saveInputs"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(save, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Inputs"), QStringLiteral("inputs.safetensors"),
                                                      tr("Safetensors (*.safetensors)"));
    if (path.isEmpty()) return;
    const QString error = saveTo(path);
    m_status->setText(error.isEmpty() ? tr("Inputs written to %1").arg(path) : error);
  });

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(random);
  layout->addLayout(randomForm);
  layout->addWidget(file);
  layout->addLayout(fileRow);
  layout->addWidget(recorded);
  layout->addWidget(m_status);
  layout->addWidget(buttons);
  connect(m_source, &QButtonGroup::idClicked, this, &NumericInputsDialog::updateEnabled);
  updateEnabled();
}

NumericRun::InputChoice NumericInputsDialog::choice() const {
  NumericRun::InputChoice c;
  c.source = static_cast<NumericRun::InputSource>(m_source->checkedId());
  c.points = m_points->value();
  c.seed = static_cast<quint64>(m_seed->value());
  c.batchSize = m_batch->value();
  c.file = m_file->text();
  return c;
}

QString NumericInputsDialog::saveTo(const QString& path) {
  m_run->setInputChoice(choice());
  return m_run->saveInputs(path);
}

void NumericInputsDialog::accept() {
  const NumericRun::InputChoice c = choice();
  if (c.source == NumericRun::InputSource::File && c.file.isEmpty()) {
    m_status->setText(tr("Choose an inputs file."));
    return;
  }
  m_run->setInputChoice(c);
  QDialog::accept();
}

void NumericInputsDialog::updateEnabled() {
  const auto source = static_cast<NumericRun::InputSource>(m_source->checkedId());
  for (QWidget* w : {static_cast<QWidget*>(m_points), static_cast<QWidget*>(m_seed), static_cast<QWidget*>(m_batch)})
    w->setEnabled(source == NumericRun::InputSource::Random);
  m_file->setEnabled(source == NumericRun::InputSource::File);
}

} // namespace lattice::studio
