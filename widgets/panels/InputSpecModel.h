#pragma once
/// \file InputSpecModel: the export's input ABI as an editable table (issue #4 item 6), one row
/// per forward input: name (from the archive, read-only), kind (sparse/dense), dtype (sparse),
/// channels, stride (sparse) and tensor type (dense). Edits are validated; an invalid value is
/// refused (setData returns false) and the spec keeps its previous value.

#include "model/Model.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <vector>

namespace lattice::studio {

class InputSpecModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { NameColumn, KindColumn, DTypeColumn, ChannelsColumn, StrideColumn, TypeColumn, ColumnCount };

  explicit InputSpecModel(QObject* parent = nullptr);

  void setSpecs(std::vector<InputSpec> specs);
  const std::vector<InputSpec>& specs() const { return m_specs; }

  /// Values an editor may offer for a column ("sparse"/"dense", "f32"/"f16"); empty for free text.
  static QStringList choices(int column);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::vector<InputSpec> m_specs;
};

/// "1, 1, 1" for a stride.
QString strideText(const std::array<int64_t, 3>& stride);
/// Parses "2" (all axes) or "1, 2, 1" (commas and/or spaces); false when invalid (not positive).
bool parseStride(const QString& text, std::array<int64_t, 3>& out);

} // namespace lattice::studio
