#pragma once
/// \file ValueRowsModel: the rows of one runtime value as a table, for the value inspector.
///
/// Sparse value: one row per active row, columns b, x, y, z (the physical coordinate, logical ×
/// stride, as `lattice-cli run --values` and Runtime::values() write `NAME.coords`) then f0 …
/// f(C−1). Dense tensor: one row per index of the first dimension, one column per element of
/// the flattened rest (rank 0 and 1: one column). Integer tensors show integers, float values
/// the shortest text that reads back as the same float.
///
/// Built for large values (100 000 rows × 64 channels): data() reads the value's shared buffers
/// directly (nothing is copied or formatted up front), rows are handed to views a page at a
/// time (canFetchMore / fetchMore), and at most maxColumns() value columns are shown (the
/// header of the last one says how many more there are).

#include "runtime/RuntimeValue.h"

#include <QAbstractTableModel>
#include <QString>

#include <cstdint>
#include <vector>

namespace lattice::studio {

class ValueRowsModel : public QAbstractTableModel {
  Q_OBJECT

public:
  /// The number itself (a double, or a qlonglong for integers and coordinates).
  static constexpr int ValueRole = Qt::UserRole + 1;

  explicit ValueRowsModel(QObject* parent = nullptr, int pageRows = 1000, int maxColumns = 256);

  /// Shows `value` (its buffers are shared, not copied); the first page of rows is loaded.
  void setValue(const runtime::RuntimeValue& value);
  void clear();
  const runtime::RuntimeValue& value() const { return m_value; }

  /// Every row of the value (rowCount() counts those loaded so far).
  std::int64_t totalRows() const { return m_totalRows; }
  /// Value columns of the value (features, flattened elements), shown or not.
  std::int64_t totalValueColumns() const { return m_valueColumns; }
  /// Value columns shown (at most maxColumns()).
  int shownValueColumns() const { return m_shownColumns; }
  /// 4 for a sparse value (b, x, y, z), 0 otherwise.
  int coordinateColumns() const { return m_sparse ? 4 : 0; }
  bool columnsCapped() const { return m_shownColumns < m_valueColumns; }
  int pageRows() const { return m_pageRows; }
  int maxColumns() const { return m_maxColumns; }
  /// Loads pages until row `row` exists (clamped to the value's rows).
  void fetchUpTo(std::int64_t row);
  /// "showing the first 256 of 512 features", or empty when every column is shown.
  QString columnsNote() const;
  /// The cell's text, for any row of the value (loaded or not).
  QString cellText(std::int64_t row, int column) const;

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  bool canFetchMore(const QModelIndex& parent) const override;
  void fetchMore(const QModelIndex& parent) override;

private:
  /// The number in a cell: coordinates and integers exactly, floats as float.
  struct Cell {
    bool isInt = false;
    std::int64_t i = 0;
    float f = 0;
  };
  Cell cell(std::int64_t row, int column) const;
  QString columnName(int column) const;

  runtime::RuntimeValue m_value;
  int m_pageRows;
  int m_maxColumns;
  bool m_sparse = false;
  std::int64_t m_totalRows = 0;
  std::int64_t m_valueColumns = 0; ///< per row in the buffer (channels, row size)
  int m_shownColumns = 0;
  int m_loadedRows = 0;
  /// Pointers into the value's buffers (kept alive by m_value).
  const float* m_floats = nullptr;
  const std::int64_t* m_ints = nullptr;
  const std::int32_t* m_coords = nullptr;
  std::int64_t m_stride[3] = {1, 1, 1};
  std::vector<std::int64_t> m_innerShape; ///< dense: shape[1:] for the column headers
};

/// The shortest text that reads back as `value` ("0.1", "1e-07", "nan", "-inf").
QString floatText(float value);

} // namespace lattice::studio
