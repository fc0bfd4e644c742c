#pragma once
/// \file DiffListModel: the compare view's list of differences, a table over an
/// ArtifactDiff: module attribute changes, ABI changes, ops that are not unchanged (changed,
/// added, removed, with every field change) and weights that are not unchanged (form and value
/// statistics), in that order. An equal diff has no rows.

#include "diff/ArtifactDiff.h"

#include <QAbstractTableModel>
#include <QVector>

#include <memory>

namespace lattice::studio {

class DiffListModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { KindColumn, StatusColumn, NameColumn, DetailColumn, ColumnCount };
  /// What a row is about.
  enum class Kind : unsigned char { ModuleAttribute, Abi, Op, Weight };
  /// Row payload roles: the Kind (int), the index into the diff's vector for that kind, and the
  /// DiffStatus (int).
  static constexpr int KindRole = Qt::UserRole + 1;
  static constexpr int IndexRole = Qt::UserRole + 2;
  static constexpr int StatusRole = Qt::UserRole + 3;

  struct Row {
    Kind kind = Kind::Op;
    DiffStatus status = DiffStatus::Changed;
    int index = -1; ///< into moduleAttributes / abi / ops / weights
    QString name;
    QString detail;
  };

  explicit DiffListModel(QObject* parent = nullptr);

  /// Shows `diff` (null: no rows).
  void setDiff(std::shared_ptr<const ArtifactDiff> diff);
  const ArtifactDiff* diff() const { return m_diff.get(); }
  const QVector<Row>& rows() const { return m_rows; }
  /// The row of op `opIndex` (into diff()->ops) / of weight `key`; -1 when it has none.
  int rowOfOp(int opIndex) const;
  int rowOfWeight(const QString& key) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  /// `field: before → after` with "(absent)" for a missing side.
  static QString changeText(const FieldChange& change);
  /// The display name of an op diff: `conv3d %conv1`, `conv3d %a → %b` when renamed.
  static QString opText(const OpDiff& op);
  /// The value/form summary of a weight diff.
  static QString weightText(const WeightDiff& weight);

private:
  std::shared_ptr<const ArtifactDiff> m_diff;
  QVector<Row> m_rows;
};

} // namespace lattice::studio
