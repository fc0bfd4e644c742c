#pragma once
/// \file NumericInputsDialog (Debug ▸ Run Inputs…): where the numeric run's inputs come from —
/// random points made from the artifact's ABI (points, seed, batch size: what `lattice-cli run
/// --random-inputs N:SEED --batch-size B` makes), an inputs.safetensors file, or the archive's
/// recorded inputs — and Save Inputs… to write them for `lattice-cli run --inputs`.

#include "numeric/NumericRun.h"

#include <QDialog>

class QButtonGroup;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace lattice::studio {

class NumericInputsDialog : public QDialog {
  Q_OBJECT

public:
  NumericInputsDialog(NumericRun* run, QWidget* parent = nullptr);

  /// The choice the controls show.
  NumericRun::InputChoice choice() const;
  /// Writes the choice's inputs to `path` (NumericRun::saveInputs after applying the choice);
  /// the error text, empty on success.
  QString saveTo(const QString& path);

  void accept() override;

private:
  void updateEnabled();

  NumericRun* m_run;
  QButtonGroup* m_source;
  QSpinBox* m_points;
  QSpinBox* m_seed;
  QSpinBox* m_batch;
  QLineEdit* m_file;
  QLabel* m_status;
};

} // namespace lattice::studio
