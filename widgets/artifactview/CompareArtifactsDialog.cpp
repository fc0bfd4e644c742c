// CompareArtifactsDialog: a form with two path rows; it only collects paths (the compare view
// reads and diffs them).

#include "artifactview/CompareArtifactsDialog.h"

#include "artifactview/ArtifactDocument.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

namespace lattice::studio {

CompareArtifactsDialog::CompareArtifactsDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Compare Artifacts"));
  m_a = new QLineEdit(this);
  m_a->setObjectName(QStringLiteral("pathA"));
  m_b = new QLineEdit(this);
  m_b->setObjectName(QStringLiteral("pathB"));
  for (QLineEdit* e : {m_a, m_b}) {
    e->setMinimumWidth(420);
    e->setPlaceholderText(tr("an artifact directory (.lattice) or a graph .mlir"));
    connect(e, &QLineEdit::textChanged, this, &CompareArtifactsDialog::updateOk);
  }
  auto row = [this](QLineEdit* edit, const QString& title) {
    auto* w = new QWidget(this);
    auto* l = new QHBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(edit, 1);
    auto* browse = new QPushButton(tr("Browse…"), w);
    connect(browse, &QPushButton::clicked, this, [this, edit, title] { this->browse(edit, title); });
    l->addWidget(browse);
    return w;
  };
  auto* form = new QFormLayout;
  form->addRow(tr("A (before):"), row(m_a, tr("Artifact A (before)")));
  form->addRow(tr("B (after):"), row(m_b, tr("Artifact B (after)")));
  auto* swap = new QPushButton(tr("Swap A and B"), this);
  connect(swap, &QPushButton::clicked, this, [this] { setPaths(m_b->text(), m_a->text()); });
  m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Compare"));
  m_buttons->addButton(swap, QDialogButtonBox::ActionRole);
  connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(m_buttons);
  updateOk();
}

void CompareArtifactsDialog::setPaths(const QString& a, const QString& b) {
  m_a->setText(a);
  m_b->setText(b);
}

QString CompareArtifactsDialog::pathA() const {
  return m_a->text().trimmed();
}

QString CompareArtifactsDialog::pathB() const {
  return m_b->text().trimmed();
}

void CompareArtifactsDialog::browse(QLineEdit* edit, const QString& title) {
  const QString start = edit->text().isEmpty() ? QString() : QFileInfo(edit->text()).absolutePath();
  const QString dir = QFileDialog::getExistingDirectory(this, title, start);
  if (!dir.isEmpty()) edit->setText(dir);
}

void CompareArtifactsDialog::updateOk() {
  m_buttons->button(QDialogButtonBox::Ok)->setEnabled(isArtifactPath(pathA()) && isArtifactPath(pathB()));
}

} // namespace lattice::studio
