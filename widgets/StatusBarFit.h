#pragma once
/// \file StatusBarFit: shares a status bar between its message and its permanent labels. The
/// labels go on the right and never widen the window; while a message shows, it keeps the room
/// it needs, up to two thirds of the bar, and the labels share the rest (an ElidedLabel shows
/// what fits). Without a message the labels take what they need.

#include <QList>
#include <QObject>
#include <QPointer>

class QStatusBar;
class QWidget;

namespace lattice::studio {

class StatusBarFit : public QObject {
  Q_OBJECT

public:
  /// Adds `permanent` to `bar` as permanent widgets and fits them from now on.
  StatusBarFit(QStatusBar* bar, const QList<QWidget*>& permanent);

  /// Fits the labels to the bar's width and its current message.
  void fit();

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  QStatusBar* m_bar;
  QList<QPointer<QWidget>> m_permanent;
};

} // namespace lattice::studio
