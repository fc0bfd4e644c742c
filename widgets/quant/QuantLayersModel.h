#pragma once
/// \file QuantLayersModel: the Quantization dock's table, one row per quantizable layer of the
/// analysis: layer (module path), node, parameters, dense bytes, bytes and measured relative L2
/// error at the outputs per candidate (Pearson in the tooltip), and the plan's choice (editable:
/// setData goes through QuantizationState::setLayerFormat, one undo step). Qt::UserRole holds
/// each figure as a number (bytes as qulonglong, errors as double; empty when not measured): the
/// proxy sorts by it and tests compare it.

#include <QAbstractTableModel>
#include <QString>

#include <cstdint>

namespace lattice::studio {

class QuantizationState;

/// "812 B", "1.42 MB": weight bytes as the dock shows them.
QString humanSize(std::uint64_t bytes);

class QuantLayersModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { LayerColumn, NodeColumn, ParametersColumn, DenseColumn };
  /// ValueRole (Qt::UserRole): a cell's figure as a number; PearsonRole: an error cell's Pearson
  /// correlation.
  enum Role { ValueRole = Qt::UserRole, PearsonRole };

  explicit QuantLayersModel(QuantizationState* state, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  /// On the plan column: a format name ("int4", "dense", …) one of the row's choices.
  bool setData(const QModelIndex& index, const QVariant& value, int role) override;

  /// Column of candidate `c`'s bytes / relative L2.
  int bytesColumn(int candidate) const;
  int errorColumn(int candidate) const;
  int planColumn() const;

private:
  int candidateCount() const;

  QuantizationState* m_state;
};

} // namespace lattice::studio
