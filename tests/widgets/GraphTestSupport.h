#pragma once
// Helpers shared by the model-graph widget tests (header-only): waiting for a layout.

#include "graph/GraphWidget.h"

#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

namespace lattice::widgettest {

/// Waits (up to 60 s) until `finished`, a spy on `w`'s layoutFinished, records the next layout;
/// false on a layout failure or the timeout.
inline bool waitForLayout(studio::GraphWidget& w, QSignalSpy& finished) {
  QSignalSpy failed(&w, &studio::GraphWidget::layoutFailed);
  for (int i = 0; i < 1200 && finished.isEmpty() && failed.isEmpty(); ++i)
    QTest::qWait(50);
  return !finished.isEmpty();
}

} // namespace lattice::widgettest
