#pragma once
/// \file CompareArtifactsDialog: Tools ▸ Compare Artifacts… — two artifact paths (A before, B
/// after), each typed or chosen with Browse…, and a swap button. OK is enabled when both name
/// an artifact directory (with graph.mlir) or a .mlir file.

#include <QDialog>

class QDialogButtonBox;
class QLineEdit;

namespace lattice::studio {

class CompareArtifactsDialog : public QDialog {
  Q_OBJECT

public:
  explicit CompareArtifactsDialog(QWidget* parent = nullptr);

  void setPaths(const QString& a, const QString& b);
  QString pathA() const;
  QString pathB() const;

private:
  void browse(QLineEdit* edit, const QString& title);
  void updateOk();

  QLineEdit* m_a;
  QLineEdit* m_b;
  QDialogButtonBox* m_buttons;
};

} // namespace lattice::studio
