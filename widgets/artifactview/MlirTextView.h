#pragma once
/// \file MlirTextView: a read-only graph.mlir text that highlights a range of lines (the
/// selected op's) and reports the line the user clicks or moves the cursor to, so the artifact
/// view can select the op written there.

#include <QPlainTextEdit>

namespace lattice::studio {

class MlirTextView : public QPlainTextEdit {
  Q_OBJECT

public:
  explicit MlirTextView(QWidget* parent = nullptr);

  /// Replaces the text. Large texts (an export of example:chain:10000 is 32 MB) are appended
  /// in slices, one event-loop turn each, so the window stays responsive; textLoaded follows
  /// the last slice (at once for small texts). Highlights set meanwhile apply as lines arrive.
  void setText(const QString& text);
  /// True while slices of the last setText are still being appended.
  bool isLoadingText() const { return m_pending.size() > 0 && m_next < m_pending.size(); }

  /// Highlights 1-based lines first..last (inclusive) and scrolls them into view; 0 clears.
  void highlightLines(int first, int last);
  /// The highlighted range; {0, 0} for none.
  std::pair<int, int> highlightedLines() const { return {m_first, m_last}; }
  /// Marks lines carrying diagnostics (1-based) with a red underline.
  void setDiagnosticLines(const QList<int>& lines);

Q_SIGNALS:
  /// The whole text of the last setText is in the document.
  void textLoaded();
  /// The user put the cursor on 1-based `line` (click or keys).
  void lineActivated(int line);

private:
  void refreshSelections();
  void appendSlice(quint64 generation);

  int m_first = 0;
  int m_last = 0;
  QList<int> m_diagnosticLines;
  bool m_programmatic = false;
  QString m_pending;    ///< the text being appended
  qsizetype m_next = 0; ///< start of the next slice in m_pending
  quint64 m_generation = 0;
};

} // namespace lattice::studio
