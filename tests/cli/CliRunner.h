#pragma once
/// \file The one QProcess runner the lattice-cli tests share: runs LATTICE_CLI (the path CMake
/// passes to every test) with arguments and collects the exit code, stdout and stderr.

#include <QProcess>
#include <QString>
#include <QStringList>

namespace lattice::testing {

/// What one run of lattice-cli produced. `code` is -1 when it timed out, -2 when it crashed.
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
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    r.err = QStringLiteral("timed out");
    return r;
  }
  r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

} // namespace lattice::testing
