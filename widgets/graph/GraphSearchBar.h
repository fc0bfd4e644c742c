#pragma once
/// \file GraphSearchBar: the Ctrl+F bar above the graph: a text field, "n of m", previous and
/// next buttons, and close (Esc). It only reports; GraphWidget searches and moves.

#include <QWidget>

class QLabel;
class QLineEdit;
class QToolButton;

namespace lattice::studio {

class GraphSearchBar : public QWidget {
  Q_OBJECT

public:
  explicit GraphSearchBar(QWidget* parent = nullptr);

  QString text() const;
  /// Shows "index of count" (index 0-based; -1 for none) or "no match".
  void setResult(int index, int count);
  /// Shows the bar and selects its text.
  void activate();
  /// The hint shown in the empty field (what is searched).
  void setPlaceholderText(const QString& text);
  QLineEdit* lineEdit() const { return m_edit; }

Q_SIGNALS:
  void textEdited(const QString& text);
  void nextRequested();
  void previousRequested();
  void closed();

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  QLineEdit* m_edit;
  QLabel* m_count;
  QToolButton* m_prev;
  QToolButton* m_next;
};

} // namespace lattice::studio
