#pragma once
/// \file WeightsTableModel: the artifact view's weights table, one row per
/// tensor of weights.safetensors in file order: key, dtype, shape, bytes, min, max, mean.
/// Min/max/mean are computed on a worker thread, row by row, and appear as they are ready
/// ("…" until then), so a huge weights file never blocks the UI. The `.weight` tensor of a
/// packed int4/int8 weight is summarised dequantized (weightValues), marked with a `≈`.

#include "artifactview/WeightStats.h"

#include <QAbstractTableModel>
#include <QTimer>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace lattice {
struct LoadedArtifact;
}

namespace lattice::studio {

class WeightsTableModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { Key, DTypeColumn, Shape, Bytes, Min, Max, Mean, ColumnCount };
  /// Numeric value of a cell for sorting (bytes, min, max, mean; elements for the shape).
  static constexpr int SortRole = Qt::UserRole + 1;
  /// The key's SortRole value: every run of digits zero-padded to one width, so keys sort
  /// naturally (`blocks.2` before `blocks.10`) under a plain string comparison.
  static QString naturalSortKey(const QString& key);

  explicit WeightsTableModel(QObject* parent = nullptr);
  ~WeightsTableModel() override;

  /// Shows the weights of `artifact` (null or a lone .mlir: no rows) and starts the statistics.
  void setArtifact(std::shared_ptr<const LoadedArtifact> artifact);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  /// The safetensors key of `row`.
  QString key(int row) const;
  /// The row of `key`, -1 when absent.
  int rowOfKey(const QString& key) const;
  /// The statistics of `row` once computed (nullopt before, or for a tensor with no values).
  std::optional<WeightStats> stats(int row) const;
  /// True while the worker still computes statistics.
  bool isComputing() const { return m_computing; }

  /// State shared with the worker (defined in the .cpp).
  struct Shared;

Q_SIGNALS:
  /// Every row's statistics are in.
  void statisticsFinished();

private:
  void poll();

  std::shared_ptr<const LoadedArtifact> m_artifact;
  std::shared_ptr<Shared> m_shared;
  QTimer m_poll;
  int m_reported = 0; ///< rows already announced with dataChanged
  bool m_computing = false;
};

} // namespace lattice::studio
