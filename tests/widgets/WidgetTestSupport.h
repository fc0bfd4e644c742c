#pragma once
// Helpers shared by the widget tests (header-only; each test is its own executable): reading a
// file, waiting for a StudioSession to finish loading a model, and the conformance directory.

#include "StudioSession.h"

#include <QtCore/QByteArray>
#include <QtCore/QFile>
#include <QtCore/QString>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

namespace lattice::widgettest {

/// The file's bytes, or an empty array when it cannot be read.
inline QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// Opens `reference` and waits (up to 30 s) for the load to finish; false when it failed.
inline bool openAndWait(studio::StudioSession& session, const QString& reference) {
  QSignalSpy loaded(&session, &studio::StudioSession::modelLoaded);
  QSignalSpy failed(&session, &studio::StudioSession::modelLoadFailed);
  session.openModel(reference);
  for (int i = 0; i < 600 && loaded.isEmpty() && failed.isEmpty(); ++i)
    QTest::qWait(50);
  return !loaded.isEmpty();
}

/// tests/data/conformance/models.
inline QString conformanceDir() {
  return QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models");
}

} // namespace lattice::widgettest
