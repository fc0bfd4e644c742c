#pragma once
/// \file RunInputsEditor: the values half of the Inputs dialog (Debug ▸ Edit Inputs…, Ctrl+I, and
/// Debug ▸ Run Inputs…, Ctrl+Shift+I, open the same dialog): where Run on Inputs and numeric
/// stepping take their values from — random points made from the artifact's ABI (points, seed,
/// batch size: what `lattice-cli run --random-inputs N:SEED --batch-size B` makes), an
/// inputs.safetensors file, or the archive's recorded inputs — Save Inputs… to write them for
/// `lattice-cli run --inputs`, and an optional expected-outputs file as the golden of a run
/// without recorded activations. Changes apply at once (NumericRun::setInputChoice, remembered per
/// model), like the input specs above it.

#include "numeric/NumericRun.h"

#include <QWidget>

class QButtonGroup;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace lattice::studio {

class RunInputsEditor : public QWidget {
  Q_OBJECT

public:
  explicit RunInputsEditor(NumericRun* run, QWidget* parent = nullptr);

  NumericRun* run() const { return m_run; }
  /// The choice the controls show.
  NumericRun::InputChoice choice() const;
  /// Applies the controls' choice to the run (a file source needs a file: the status says so).
  void apply();
  /// Writes the choice's inputs to `path` (NumericRun::saveInputs after applying the choice);
  /// the error text, empty on success.
  QString saveTo(const QString& path);
  QString statusText() const;

private:
  /// The controls show the run's choice (another model opened, or the choice changed elsewhere).
  void showChoice();
  void updateEnabled();

  NumericRun* m_run;
  bool m_showing = false;
  QButtonGroup* m_source;
  QSpinBox* m_points;
  QSpinBox* m_seed;
  QSpinBox* m_batch;
  QLineEdit* m_file;
  QLineEdit* m_expected; ///< NumericRun::expectedOutputs
  QLabel* m_status;
};

} // namespace lattice::studio
