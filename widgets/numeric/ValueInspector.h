#pragma once
/// \file ValueInspector: everything about one runtime value. A title
/// (the SSA or node name and describeValue), a summary form (kind, dtype, shape; active rows,
/// channels, stride and capacity of a sparse value; element, NaN, ±inf and zero counts; min,
/// max, mean and std of the finite elements), the histogram of its elements (HistogramChart),
/// the paged table of its rows (ValueRowsModel: coordinates and features, or dense rows) with a
/// "go to row" box, and Save Value… (the value as .safetensors, named as `lattice-cli run
/// --values` names it). A message (an error, "not computed yet") replaces all of it.
///
/// The summary of a value with many elements is computed on a worker thread (summaryReady()
/// follows when it is shown); smaller ones at once. The value's buffers are shared, never
/// copied.

#include "runtime/ValueSummary.h"
#include "tensor/Safetensors.h"

#include <QHash>
#include <QString>
#include <QWidget>

#include <cstdint>
#include <string>
#include <vector>

class QCheckBox;
class QFormLayout;
class QLabel;
class QPushButton;
class QSpinBox;
class QScrollArea;
class QStackedLayout;
class QTableView;

namespace lattice::studio {

class HistogramChart;
class ValueRowsModel;

/// The tensors that store `value` under `name` (a leading `%` dropped), as `lattice-cli run
/// --values` writes them: a dense tensor as NAME; a sparse value as NAME.coords (physical I32
/// (n, 4)), NAME.features and NAME.active; a weight as its stored tensors (dense: NAME;
/// quantized: NAME.weight, NAME.scales and NAME.biases when it has biases). Empty for no value.
std::vector<NamedTensor> valueTensors(const std::string& name, const runtime::RuntimeValue& value);

class ValueInspector : public QWidget {
  Q_OBJECT

public:
  explicit ValueInspector(QWidget* parent = nullptr);
  ~ValueInspector() override;

  /// Shows `value` under `name` (an SSA or node name).
  void setValue(const QString& name, const runtime::RuntimeValue& value);
  /// Shows nothing (the placeholder message).
  void clear();
  /// Shows `message` instead of a value.
  void setMessage(const QString& message);

  const QString& name() const { return m_name; }
  const runtime::RuntimeValue& value() const { return m_value; }
  /// The summary shown (default-constructed while none is, or while it is computed).
  const runtime::ValueSummary& summary() const { return m_summary; }
  bool isSummaryRunning() const { return m_summaryRunning; }
  /// True while a message (or the placeholder) is shown instead of a value.
  bool showsMessage() const;
  QString message() const;
  QString titleText() const;
  /// The text of summary field `key`: kind, dtype, shape, rows, channels, stride, capacity,
  /// weight, elements, nan, posInf, negInf, zeros, min, max, mean, std, note ("" when the field is
  /// hidden for this value).
  QString fieldText(const QString& key) const;

  /// Writes the value to `path` as .safetensors (valueTensors); the error, or empty on success.
  QString saveValue(const QString& path) const;

  /// Summaries of values with more elements than this run on a worker thread.
  static constexpr std::uint64_t backgroundElements() { return std::uint64_t(1) << 21; }
  static constexpr int histogramBins() { return 64; }

  HistogramChart* histogram() const { return m_histogram; }
  ValueRowsModel* rowsModel() const { return m_rows; }
  QTableView* rowsView() const { return m_table; }
  QPushButton* saveButton() const { return m_save; }

Q_SIGNALS:
  /// The summary of the current value is shown (at once for small values, later for large ones).
  void summaryReady();

private:
  /// Column widths from the first rows (coordinates narrow, floats as wide as they need).
  void sizeColumns();
  void showSummary();
  void saveInteractively();
  void goToRow(int row);

  QString m_name;
  runtime::RuntimeValue m_value;
  runtime::ValueSummary m_summary;
  bool m_summaryRunning = false;
  quint64 m_generation = 0;

  QStackedLayout* m_stack;
  QLabel* m_messageLabel;
  QLabel* m_title;
  QScrollArea* m_formScroll = nullptr;
  QFormLayout* m_form;
  QHash<QString, QLabel*> m_fields;
  HistogramChart* m_histogram;
  QCheckBox* m_logCounts;
  QLabel* m_columnsNote;
  QSpinBox* m_goTo;
  QTableView* m_table;
  ValueRowsModel* m_rows;
  QPushButton* m_save;
};

} // namespace lattice::studio
