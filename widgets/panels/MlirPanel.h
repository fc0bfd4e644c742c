#pragma once
/// \file MlirPanel: graph.mlir as the interpreter builds it. The text grows by
/// appending the lines of newly emitted ops after each step (the writer renders each op's line
/// once, so a 40k-line artifact is never re-rendered per step); when the lowering finishes, the
/// header's output names, the result type and the `return` are patched in, so the text then equals
/// graph.mlir byte for byte. The lines the selected node emitted are highlighted (the builder's
/// provenance), the last executed node's lines are tinted, and clicking a line selects the node
/// that emitted it. During a run the text grows once per slice; a hidden panel catches up when
/// shown or when the run ends.

#include <QList>
#include <QWidget>

class QLabel;
class QPlainTextEdit;

namespace lattice {
class TorchLatticeArtifactBuilder;
}

namespace lattice::studio {

class StudioSession;

class MlirPanel : public QWidget {
  Q_OBJECT

public:
  explicit MlirPanel(StudioSession* session, QWidget* parent = nullptr);

  QPlainTextEdit* editor() const { return m_editor; }
  /// The text shown (graph.mlir so far).
  QString text() const;
  /// 1-based lines highlighted for the selected node, ascending.
  QList<int> highlightedLines() const { return m_selectedLines; }
  /// The FX node that emitted 1-based `line` (an argument or an op); empty for other lines.
  QString nodeAtLine(int line) const;

public Q_SLOTS:
  /// What a click on `line` (1-based) does: selects the node that emitted it, if any.
  void selectNodeAtLine(int line);

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void showEvent(QShowEvent* event) override;

private:
  const TorchLatticeArtifactBuilder* builder() const;
  /// Re-renders the whole text from the writer (start, reset, or an unexpected change).
  void rebuild();
  /// Appends ops emitted since the last sync and completes the text once there is a return.
  void sync();
  /// Patches the header and arrow lines and appends the return and closing lines.
  void complete();
  void updateHighlights(bool scroll);
  QList<int> linesOf(const QString& node) const;
  QList<int> lastExecutedLines() const;

  StudioSession* m_session;
  QPlainTextEdit* m_editor;
  QLabel* m_status;
  std::size_t m_arguments = 0; ///< arguments in the shown text
  std::size_t m_ops = 0;       ///< ops in the shown text
  bool m_complete = false;     ///< the text is the full graph.mlir
  bool m_hasText = false;
  bool m_pending = false;   ///< steps skipped while hidden during a run
  int m_executedSeen = 0;   ///< executedNodes() already looked at for the selected node
  bool m_clicking = false;  ///< a click selects: do not scroll away from it
  bool m_followTail = true; ///< keep the newest line in view after appends
  bool m_programmaticScroll = false;
  QList<int> m_selectedLines;
};

} // namespace lattice::studio
