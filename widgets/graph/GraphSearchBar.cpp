// GraphSearchBar: widgets and key handling only (Enter = next, Shift+Enter = previous,
// Esc = close).

#include "graph/GraphSearchBar.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

namespace lattice::studio {

GraphSearchBar::GraphSearchBar(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(8, 4, 8, 4);
  layout->setSpacing(4);
  auto* label = new QLabel(tr("Find:"), this);
  m_edit = new QLineEdit(this);
  m_edit->setObjectName(QStringLiteral("graphSearchEdit"));
  m_edit->setPlaceholderText(tr("node name, target or module type"));
  m_edit->setClearButtonEnabled(true);
  m_edit->setMinimumWidth(280);
  m_count = new QLabel(this);
  m_count->setMinimumWidth(90);
  m_prev = new QToolButton(this);
  m_prev->setArrowType(Qt::UpArrow);
  m_prev->setToolTip(tr("Previous match (Shift+Enter)"));
  m_next = new QToolButton(this);
  m_next->setArrowType(Qt::DownArrow);
  m_next->setToolTip(tr("Next match (Enter)"));
  auto* close = new QToolButton(this);
  close->setText(QStringLiteral("✕"));
  close->setAutoRaise(true);
  close->setToolTip(tr("Close (Esc)"));
  layout->addWidget(label);
  layout->addWidget(m_edit);
  layout->addWidget(m_prev);
  layout->addWidget(m_next);
  layout->addWidget(m_count);
  layout->addStretch(1);
  layout->addWidget(close);
  m_edit->installEventFilter(this);
  connect(m_edit, &QLineEdit::textChanged, this, &GraphSearchBar::textEdited);
  connect(m_edit, &QLineEdit::returnPressed, this, &GraphSearchBar::nextRequested);
  connect(m_prev, &QToolButton::clicked, this, &GraphSearchBar::previousRequested);
  connect(m_next, &QToolButton::clicked, this, &GraphSearchBar::nextRequested);
  connect(close, &QToolButton::clicked, this, [this] {
    hide();
    Q_EMIT closed();
  });
  setAutoFillBackground(true);
}

QString GraphSearchBar::text() const {
  return m_edit->text();
}

void GraphSearchBar::setResult(int index, int count) {
  if (m_edit->text().trimmed().isEmpty())
    m_count->clear();
  else if (count == 0)
    m_count->setText(tr("no match"));
  else
    m_count->setText(tr("%1 of %2").arg(index + 1).arg(count));
  m_prev->setEnabled(count > 0);
  m_next->setEnabled(count > 0);
}

void GraphSearchBar::setPlaceholderText(const QString& text) {
  m_edit->setPlaceholderText(text);
}

void GraphSearchBar::activate() {
  show();
  m_edit->setFocus(Qt::ShortcutFocusReason);
  m_edit->selectAll();
}

bool GraphSearchBar::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_edit && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() == Qt::Key_Escape) {
      hide();
      Q_EMIT closed();
      return true;
    }
    if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) &&
        (key->modifiers() & Qt::ShiftModifier)) {
      Q_EMIT previousRequested();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

} // namespace lattice::studio
