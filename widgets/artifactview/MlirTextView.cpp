// MlirTextView: extra selections for the highlighted op and diagnostic lines; cursor moves made
// by the user (not by highlightLines) are reported as lineActivated.

#include "artifactview/MlirTextView.h"

#include "graph/NodeStyle.h"

#include <QFontDatabase>
#include <QScrollBar>
#include <QTextBlock>
#include <QTimer>

namespace lattice::studio {

MlirTextView::MlirTextView(QWidget* parent) : QPlainTextEdit(parent) {
  setReadOnly(true);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  connect(this, &QPlainTextEdit::cursorPositionChanged, this, [this] {
    if (m_programmatic) return;
    Q_EMIT lineActivated(textCursor().blockNumber() + 1);
  });
}

namespace {
constexpr qsizetype kSlice = qsizetype(1) << 20; // characters per event-loop turn
} // namespace

void MlirTextView::setText(const QString& text) {
  const quint64 generation = ++m_generation;
  m_programmatic = true;
  if (text.size() <= 2 * kSlice) {
    m_pending.clear();
    m_next = 0;
    setPlainText(text);
    m_programmatic = false;
    refreshSelections();
    Q_EMIT textLoaded();
    return;
  }
  m_pending = text;
  m_next = 0;
  clear();
  m_programmatic = false;
  appendSlice(generation);
}

void MlirTextView::appendSlice(quint64 generation) {
  if (generation != m_generation) return; // a newer setText replaced this text
  // Slices end at a line break; appendPlainText starts a new block, which stands for it.
  qsizetype end = m_next + kSlice >= m_pending.size() ? m_pending.size()
                                                      : m_pending.indexOf(QLatin1Char('\n'), m_next + kSlice);
  if (end < 0) end = m_pending.size();
  const QString slice = m_pending.mid(m_next, end - m_next);
  m_programmatic = true;
  const int scroll = verticalScrollBar()->value();
  if (m_next == 0)
    setPlainText(slice);
  else
    appendPlainText(slice);
  verticalScrollBar()->setValue(scroll); // appending never moves the reader
  m_programmatic = false;
  m_next = end + 1;
  if (end < m_pending.size()) {
    QTimer::singleShot(0, this, [this, generation] { appendSlice(generation); });
    return;
  }
  m_pending.clear();
  m_next = 0;
  refreshSelections();
  if (m_first > 0) highlightLines(m_first, m_last);
  Q_EMIT textLoaded();
}

void MlirTextView::highlightLines(int first, int last) {
  m_first = first > 0 ? first : 0;
  m_last = first > 0 ? qMax(first, last) : 0;
  refreshSelections();
  if (m_first <= 0) return;
  const QTextBlock block = document()->findBlockByNumber(m_first - 1);
  if (!block.isValid()) return;
  // Move the cursor only when it is outside the range, so a click inside keeps its place.
  const int cursorLine = textCursor().blockNumber() + 1;
  if (cursorLine < m_first || cursorLine > m_last) {
    m_programmatic = true;
    QTextCursor c(block);
    setTextCursor(c);
    m_programmatic = false;
  }
  centerCursor();
}

void MlirTextView::setDiagnosticLines(const QList<int>& lines) {
  m_diagnosticLines = lines;
  refreshSelections();
}

void MlirTextView::refreshSelections() {
  QList<QTextEdit::ExtraSelection> selections;
  for (int line : std::as_const(m_diagnosticLines)) {
    const QTextBlock block = document()->findBlockByNumber(line - 1);
    if (!block.isValid()) continue;
    QTextEdit::ExtraSelection s;
    s.cursor = QTextCursor(block);
    s.cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
    s.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    s.format.setUnderlineColor(palette::failed());
    selections << s;
  }
  if (m_first > 0) {
    QColor fill = palette::selection();
    fill.setAlpha(40);
    for (int line = m_first; line <= m_last; ++line) {
      const QTextBlock block = document()->findBlockByNumber(line - 1);
      if (!block.isValid()) break;
      QTextEdit::ExtraSelection s;
      s.cursor = QTextCursor(block);
      s.format.setBackground(fill);
      s.format.setProperty(QTextFormat::FullWidthSelection, true);
      selections << s;
    }
  }
  setExtraSelections(selections);
}

} // namespace lattice::studio
