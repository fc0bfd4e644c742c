// File ▸ Open Model…'s chooser: one dialog opens a TorchScript file or
// an .ltfx archive directory. Pressing Open on an archive directory selects it (a plain
// QFileDialog would enter it), choosing its model.json selects the archive, a .pt file is itself,
// and another directory is entered, not chosen.

#include "OpenDialogs.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using lattice::studio::isArchiveDirectory;
using lattice::studio::ModelFileDialog;

namespace {

void touch(const QString& path) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write("x");
}

} // namespace

class TestModelFileDialog : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase();
  void archiveDirectoryIsChosen();
  void modelJsonChoosesItsArchive();
  void torchScriptFileIsChosen();
  void otherDirectoryIsEntered();

private:
  QTemporaryDir m_tmp;
  QString m_archive, m_plain, m_pt;
};

void TestModelFileDialog::initTestCase() {
  QVERIFY(m_tmp.isValid());
  QDir root(m_tmp.path());
  QVERIFY(root.mkpath(QStringLiteral("net.ltfx")));
  QVERIFY(root.mkpath(QStringLiteral("plain")));
  m_archive = root.filePath(QStringLiteral("net.ltfx"));
  m_plain = root.filePath(QStringLiteral("plain"));
  m_pt = root.filePath(QStringLiteral("scripted.pt"));
  touch(QDir(m_archive).filePath(QStringLiteral("model.json")));
  touch(m_pt);
  QVERIFY(isArchiveDirectory(m_archive));
  QVERIFY(!isArchiveDirectory(m_plain));
  QVERIFY(!isArchiveDirectory(m_pt));
}

void TestModelFileDialog::archiveDirectoryIsChosen() {
  ModelFileDialog dialog(nullptr, m_tmp.path());
  dialog.selectFile(m_archive);
  dialog.accept();
  QCOMPARE(dialog.result(), int(QDialog::Accepted));
  QCOMPARE(QFileInfo(dialog.chosen()).canonicalFilePath(), QFileInfo(m_archive).canonicalFilePath());
}

void TestModelFileDialog::modelJsonChoosesItsArchive() {
  ModelFileDialog dialog(nullptr, m_archive);
  dialog.selectFile(QDir(m_archive).filePath(QStringLiteral("model.json")));
  dialog.accept();
  QCOMPARE(dialog.result(), int(QDialog::Accepted));
  QCOMPARE(QFileInfo(dialog.chosen()).canonicalFilePath(), QFileInfo(m_archive).canonicalFilePath());
}

void TestModelFileDialog::torchScriptFileIsChosen() {
  ModelFileDialog dialog(nullptr, m_tmp.path());
  dialog.selectFile(m_pt);
  dialog.accept();
  QCOMPARE(dialog.result(), int(QDialog::Accepted));
  QCOMPARE(QFileInfo(dialog.chosen()).canonicalFilePath(), QFileInfo(m_pt).canonicalFilePath());
}

void TestModelFileDialog::otherDirectoryIsEntered() {
  ModelFileDialog dialog(nullptr, m_tmp.path());
  dialog.selectFile(m_plain);
  dialog.accept();
  QVERIFY(dialog.chosen().isEmpty());
  QCOMPARE(QFileInfo(dialog.directory().absolutePath()).canonicalFilePath(),
           QFileInfo(m_plain).canonicalFilePath());
}

QTEST_MAIN(TestModelFileDialog)
#include "tst_model_file_dialog.moc"
