#pragma once
// Helpers shared by the widget tests (header-only; each test is its own executable): reading a
// file, waiting for a StudioSession to finish loading a model or for any condition, the
// conformance directory, and per-test QSettings.

#include "StudioSession.h"

#include <QtCore/QByteArray>
#include <QtCore/QCoreApplication>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QSettings>
#include <QtCore/QString>
#include <QtCore/QStringList>

#include <functional>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

namespace lattice::widgettest {

/// The node names of `example:chain:N` up to block `blocks` in execution order: `x`, then
/// `blocks_<b>_<layer>` for the conv, norm and activation of each block.
inline QStringList chainPrefix(int blocks) {
  QStringList names{QStringLiteral("x")};
  for (int b = 0; b < blocks; ++b)
    for (int layer = 0; layer < 3; ++layer)
      names << QStringLiteral("blocks_%1_%2").arg(b).arg(layer);
  return names;
}

/// The file's bytes, or an empty array when it cannot be read.
inline QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// A run slice budget no test's run reaches: continueRun and runToNode finish before they
/// return however loaded the machine is, as the default budget (15 ms) does for small graphs on
/// an idle one.
inline constexpr int kUnslicedRunBudgetMs = 600'000;

/// Opens `reference` and waits (up to 120 s: a TorchScript file loads LibTorch, slow under the
/// sanitizers) for the load to finish; false, with the reason logged, when it failed. The
/// session's run slice budget becomes kUnslicedRunBudgetMs, so a test's short runs end inside
/// the call whatever the load; tests of slicing set their own budget afterwards.
inline bool openAndWait(studio::StudioSession& session, const QString& reference) {
  QSignalSpy loaded(&session, &studio::StudioSession::modelLoaded);
  QSignalSpy failed(&session, &studio::StudioSession::modelLoadFailed);
  session.setRunSliceBudget(kUnslicedRunBudgetMs);
  session.openModel(reference);
  for (int i = 0; i < 2400 && loaded.isEmpty() && failed.isEmpty(); ++i)
    QTest::qWait(50);
  if (!failed.isEmpty())
    qWarning("openAndWait: %s failed: %s", qPrintable(reference), qPrintable(failed.front().front().toString()));
  else if (loaded.isEmpty())
    qWarning("openAndWait: %s did not load within 120 s", qPrintable(reference));
  return !loaded.isEmpty();
}

/// tests/data/conformance/models.
inline QString conformanceDir() {
  return QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models");
}

/// Spins the event loop until `done()` holds or `timeoutMs` passed; returns `done()`.
inline bool waitFor(const std::function<bool()>& done, int timeoutMs = 60000) {
  QElapsedTimer clock;
  clock.start();
  while (!done() && clock.elapsed() < timeoutMs)
    QTest::qWait(20);
  return done();
}

/// Gives the test its own, empty QSettings (organization "LatticeTest", application `name`), so
/// window state saved by a user's studio or another test never leaks in.
inline void isolateSettings(const QString& name) {
  QCoreApplication::setOrganizationName(QStringLiteral("LatticeTest"));
  QCoreApplication::setApplicationName(name);
  QSettings().clear();
}

} // namespace lattice::widgettest
