#pragma once
/// \file The one QProcess runner the lattice-cli tests share: runs LATTICE_CLI (the path CMake
/// passes to every test) with arguments and collects the exit code, stdout and stderr.

#include <QProcess>
#include <QtGlobal>
#include <QString>
#include <QStringList>

namespace lattice::testing {

/// What one run of lattice-cli produced. `code` is -1 when it timed out or did not start (`err`
/// says which), -2 when it crashed.
struct CliRun {
  int code = -1;
  QString out;
  QString err;
};

/// Runs lattice-cli with `args`, waiting up to `timeoutMs`.
inline CliRun runCli(const QStringList& args, int timeoutMs = 600000) {
  QProcess p;
  p.start(QStringLiteral(LATTICE_CLI), args);
  CliRun r;
  if (!p.waitForStarted()) { // e.g. the executable is missing, or being relinked by a build
    r.err = QStringLiteral("could not start " LATTICE_CLI ": ") + p.errorString();
    qWarning("%s", qPrintable(r.err)); // in the test's log, whatever the caller then checks
    return r;
  }
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    r.err = QStringLiteral("timed out");
    qWarning("lattice-cli %s: timed out after %d ms", qPrintable(args.join(QLatin1Char(' '))), timeoutMs);
    return r;
  }
  r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

} // namespace lattice::testing
