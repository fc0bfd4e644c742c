// MlirPanel: shows the prepared lowering's MlirModuleWriter text incrementally (partialText()
// once, then each new op's line) and maps lines to FX nodes through the builder's provenance.
// It reads the builder only on the UI thread, after the session signals; it never edits it.

#include "panels/MlirPanel.h"

#include "StudioSession.h"
#include "lowering/TorchLatticeArtifactBuilder.h"
#include "graph/NodeStyle.h"

#include <QEvent>
#include <QFontDatabase>
#include <QLabel>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTextBlock>
#include <QVBoxLayout>

#include <algorithm>

namespace lattice::studio {

namespace {

QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

/// Splits `text` at '\n' into views (a trailing '\n' gives a last empty line, as in a document).
std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\n') {
      lines.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return lines;
}

} // namespace

MlirPanel::MlirPanel(StudioSession* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_editor(new QPlainTextEdit(this)), m_status(new QLabel(this)) {
  setObjectName(QStringLiteral("mlirPanel"));
  m_editor->setReadOnly(true);
  m_editor->setUndoRedoEnabled(false);
  m_editor->setLineWrapMode(QPlainTextEdit::NoWrap);
  m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_editor->setPlaceholderText(QStringLiteral("Start the interpreter to watch graph.mlir being built"));
  m_editor->viewport()->installEventFilter(this);
  // Follow the newest lines while the view is at the bottom; scrolling up stops following.
  connect(m_editor->verticalScrollBar(), &QScrollBar::valueChanged, this, [this](int value) {
    if (!m_programmaticScroll) m_followTail = value >= m_editor->verticalScrollBar()->maximum();
  });
  // The range is only known once the text is laid out (maybe after the panel is first shown).
  connect(m_editor->verticalScrollBar(), &QScrollBar::rangeChanged, this, [this](int, int max) {
    if (!m_followTail) return;
    m_programmaticScroll = true;
    m_editor->verticalScrollBar()->setValue(max);
    m_programmaticScroll = false;
  });

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(m_editor, 1);
  layout->addWidget(m_status);

  connect(session, &StudioSession::interpreterReset, this, &MlirPanel::rebuild);
  connect(session, &StudioSession::modelLoaded, this, &MlirPanel::rebuild);
  connect(session, &StudioSession::interpreterStepped, this, &MlirPanel::sync);
  connect(session, &StudioSession::interpreterFinished, this, &MlirPanel::sync);
  connect(session, &StudioSession::interpreterFailed, this, &MlirPanel::sync);
  // An interrupted run ends without a step signal: catch up on what a hidden panel skipped.
  connect(session, &StudioSession::runningChanged, this, [this](bool running) {
    if (!running && m_pending) sync();
  });
  connect(session, &StudioSession::selectionChanged, this, [this] {
    m_selectedLines = linesOf(m_session->selectedNode());
    updateHighlights(!m_clicking);
  });
  rebuild();
}

const TorchLatticeArtifactBuilder* MlirPanel::builder() const {
  const PreparedLowering* lowering = m_session->lowering();
  return lowering ? lowering->builder.get() : nullptr;
}

QString MlirPanel::text() const {
  return m_editor->toPlainText();
}

void MlirPanel::rebuild() {
  m_pending = false;
  const TorchLatticeArtifactBuilder* b = builder();
  m_complete = false;
  m_arguments = m_ops = 0;
  m_hasText = b != nullptr;
  m_executedSeen = 0;
  if (!b) {
    m_editor->clear();
    m_selectedLines.clear();
    updateHighlights(false);
    return;
  }
  const MlirModuleWriter& writer = b->writer();
  m_editor->setPlainText(qs(writer.partialText()));
  m_arguments = writer.arguments().size();
  m_ops = writer.opCount();
  m_complete = writer.hasReturn(); // partialText() is then str() itself
  m_followTail = true;
  m_executedSeen = m_session->executedNodes().size();
  m_selectedLines = linesOf(m_session->selectedNode());
  updateHighlights(false);
}

void MlirPanel::sync() {
  // During a run a hidden panel (a dock tab behind another) skips the per-slice appends, the
  // run's main refresh cost, and catches up when shown or when the run ends.
  if (m_session->isRunning() && !isVisible()) {
    m_pending = true;
    return;
  }
  m_pending = false;
  const TorchLatticeArtifactBuilder* b = builder();
  if (!b || !m_hasText) {
    rebuild();
    return;
  }
  const MlirModuleWriter& writer = b->writer();
  if (writer.arguments().size() != m_arguments || writer.opCount() < m_ops ||
      (m_complete && writer.opCount() != m_ops)) {
    rebuild();
    return;
  }
  if (!m_complete && writer.opCount() > m_ops) {
    QString lines;
    for (std::size_t i = m_ops; i < writer.opCount(); ++i) {
      if (i > m_ops) lines += QLatin1Char('\n');
      lines += QStringLiteral("    ") + qs(writer.ops()[i].text);
    }
    m_ops = writer.opCount();
    m_editor->appendPlainText(lines);
  }
  if (!m_complete && writer.hasReturn()) complete();
  if (m_followTail) {
    m_programmaticScroll = true;
    m_editor->verticalScrollBar()->setValue(m_editor->verticalScrollBar()->maximum());
    m_programmaticScroll = false;
  }
  // The selected node's lines change only when it ran in this batch: skip the provenance scan
  // otherwise (stepping a 40k-op graph must not scan everything per step).
  const QStringList& executed = m_session->executedNodes();
  const QString selected = m_session->selectedNode();
  for (int i = m_executedSeen; i < executed.size() && !selected.isEmpty(); ++i) {
    if (executed[i] == selected) {
      m_selectedLines = linesOf(selected);
      break;
    }
  }
  m_executedSeen = executed.size();
  // A failing node may have emitted some lines before its error.
  if (m_session->interpreterState() == StudioSession::InterpreterState::Failed &&
      selected == m_session->failedNode())
    m_selectedLines = linesOf(selected);
  updateHighlights(false);
}

void MlirPanel::complete() {
  const MlirModuleWriter& writer = builder()->writer();
  Expected<std::string> full = writer.str();
  if (!full) return;
  const std::vector<std::string_view> lines = splitLines(*full);
  QTextDocument* doc = m_editor->document();
  const int shown = doc->blockCount();
  // Only the header and the `) -> ...` line differ from the partial text; op lines are final.
  const int patchable = std::min<int>(shown, static_cast<int>(writer.opLine(0)) - 1);
  QTextCursor cursor(doc);
  cursor.beginEditBlock();
  for (int i = 0; i < patchable && i < static_cast<int>(lines.size()); ++i) {
    const QString line = QString::fromUtf8(lines[i].data(), static_cast<int>(lines[i].size()));
    QTextBlock block = doc->findBlockByNumber(i);
    if (block.text() == line) continue;
    cursor.setPosition(block.position());
    cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
    cursor.insertText(line);
  }
  cursor.endEditBlock();
  QString tail;
  for (std::size_t i = static_cast<std::size_t>(shown); i < lines.size(); ++i) {
    if (i > static_cast<std::size_t>(shown)) tail += QLatin1Char('\n');
    tail += QString::fromUtf8(lines[i].data(), static_cast<int>(lines[i].size()));
  }
  if (lines.size() > static_cast<std::size_t>(shown)) m_editor->appendPlainText(tail);
  m_complete = true;
}

QList<int> MlirPanel::linesOf(const QString& node) const {
  QList<int> lines;
  const TorchLatticeArtifactBuilder* b = builder();
  if (!b || node.isEmpty()) return lines;
  for (const OpProvenance* record : b->provenanceOf(node.toStdString()))
    lines << static_cast<int>(b->lineOf(*record));
  std::sort(lines.begin(), lines.end());
  return lines;
}

QList<int> MlirPanel::lastExecutedLines() const {
  // A node's records are emitted while it runs, so the last node's are at the end of the
  // provenance (placeholders emitted theirs before the first step: they show none here).
  QList<int> lines;
  const TorchLatticeArtifactBuilder* b = builder();
  const QStringList& executed = m_session->executedNodes();
  if (!b || executed.isEmpty()) return lines;
  const std::string last = executed.constLast().toStdString();
  const std::vector<OpProvenance>& records = b->provenance();
  for (auto it = records.rbegin(); it != records.rend() && b->ownerOf(*it) == last; ++it)
    lines.prepend(static_cast<int>(b->lineOf(*it)));
  return lines;
}

void MlirPanel::updateHighlights(bool scroll) {
  const QList<int> lastLines = lastExecutedLines();

  QList<QTextEdit::ExtraSelection> selections;
  QTextDocument* doc = m_editor->document();
  auto add = [&](int line, const QColor& color) {
    const QTextBlock block = doc->findBlockByNumber(line - 1);
    if (!block.isValid()) return;
    QTextEdit::ExtraSelection s;
    s.cursor = QTextCursor(block);
    s.format.setBackground(color);
    s.format.setProperty(QTextFormat::FullWidthSelection, true);
    selections << s;
  };
  QColor last = palette::current();
  last.setAlpha(45);
  for (int line : lastLines)
    add(line, last);
  QColor selected = palette::selection();
  selected.setAlpha(60);
  for (int line : m_selectedLines)
    add(line, selected);
  m_editor->setExtraSelections(selections);

  if (scroll && !m_selectedLines.isEmpty()) {
    const QTextBlock block = doc->findBlockByNumber(m_selectedLines.front() - 1);
    if (block.isValid()) {
      QTextCursor cursor(block);
      m_programmaticScroll = true;
      m_editor->setTextCursor(cursor);
      m_editor->centerCursor();
      m_programmaticScroll = false;
      m_followTail = false; // stay on the selection while stepping
    }
  }
  const QString node = m_session->selectedNode();
  m_status->setText(node.isEmpty() ? QStringLiteral("%1 lines").arg(doc->blockCount())
                                   : QStringLiteral("%1 lines; '%2' emitted %3")
                                         .arg(doc->blockCount())
                                         .arg(node)
                                         .arg(m_selectedLines.size()));
}

QString MlirPanel::nodeAtLine(int line) const {
  const TorchLatticeArtifactBuilder* b = builder();
  if (!b || line <= 0) return {};
  const MlirModuleWriter& writer = b->writer();
  const std::size_t l = static_cast<std::size_t>(line);
  OpProvenance::Kind kind = OpProvenance::Kind::Op;
  std::size_t index = 0;
  if (!writer.arguments().empty() && l >= writer.argumentLine(0) &&
      l < writer.argumentLine(0) + writer.arguments().size()) {
    kind = OpProvenance::Kind::Argument;
    index = l - writer.argumentLine(0);
  } else if (writer.opCount() > 0 && l >= writer.opLine(0) && l < writer.opLine(0) + writer.opCount()) {
    kind = OpProvenance::Kind::Op;
    index = l - writer.opLine(0);
  } else {
    return {};
  }
  for (const OpProvenance& record : b->provenance())
    if (record.kind == kind && record.index == index) return qs(b->ownerOf(record));
  return {};
}

void MlirPanel::selectNodeAtLine(int line) {
  const QString node = nodeAtLine(line);
  if (node.isEmpty()) return;
  m_clicking = true;
  m_session->selectNode(node);
  m_clicking = false;
}

void MlirPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (m_pending) sync();
}

bool MlirPanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_editor->viewport() && event->type() == QEvent::MouseButtonRelease) {
    auto* mouse = static_cast<QMouseEvent*>(event);
    if (mouse->button() == Qt::LeftButton && !m_editor->textCursor().hasSelection())
      selectNodeAtLine(m_editor->cursorForPosition(mouse->position().toPoint()).blockNumber() + 1);
  }
  return QWidget::eventFilter(watched, event);
}

} // namespace lattice::studio
