#pragma once
/// \file InputSpecModel: a model's input ABI as an editable table, one row per exposed forward input in order: name, kind (sparse/dense), dtype
/// (sparse), channels, stride (sparse) and tensor type (dense). Rows can be added, removed and
/// moved. Edits are validated; an invalid value is refused (setData returns false) and the spec
/// keeps its previous value. The names of the archive's own inputs are fixed; an added row's
/// name is editable (non-empty, an identifier, unique in the table).
///
/// Bound to a StudioSession, the table is the session's one input list (StudioSession::
/// inputSpecs): every edit goes to StudioSession::setInputSpecs (undoable, remembered for the
/// model, shared with the interpreter and every other view of the list) and the table follows
/// the session's changes. Unbound, it edits a list of its own (setSpecs).
///
/// A spec means what `lattice-cli lower --input` means by it: cliText() gives that form.

#include "exec/InputChannels.h"
#include "model/Model.h"

#include <QAbstractTableModel>
#include <QPointer>
#include <QStringList>

#include <vector>

namespace lattice::studio {

class StudioSession;

class InputSpecModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { NameColumn, KindColumn, DTypeColumn, ChannelsColumn, StrideColumn, TypeColumn, ColumnCount };

  /// A table of its own; setSpecs fills it.
  explicit InputSpecModel(QObject* parent = nullptr);
  /// The session's input list.
  explicit InputSpecModel(StudioSession* session, QObject* parent = nullptr);

  StudioSession* session() const { return m_session; }

  /// Replaces the whole list. Unbound, the given specs stand for the archive's: their names are
  /// the fixed ones. Bound: StudioSession::setInputSpecs.
  void setSpecs(std::vector<InputSpec> specs);
  const std::vector<InputSpec>& specs() const { return m_specs; }

  /// False for a row holding one of the archive's inputs (its name is the archive's).
  bool isNameEditable(int row) const;
  /// Why `name` cannot name `row` (empty when it can): empty, not an identifier, or taken.
  QString nameError(int row, const QString& name) const;
  /// A name for a new row: the first forward parameter (bound) no row uses, else `input`,
  /// `input_1`, ...
  QString suggestedName() const;

  /// What the model needs of `row`'s channel count (bound, sparse rows): the width the first op
  /// consuming the input takes, from a lowering of the session's model in memory with the
  /// inputs' widths open (inputChannelNeeds; cached until the model, its graph or the other
  /// fields of the specs change). Nothing when no op constrains it or the lowering fails.
  std::optional<InputChannelNeed> channelNeed(int row) const;
  /// Why `channels` cannot be `row`'s channel count (empty when it can).
  QString channelsError(int row, std::int64_t channels) const;

  /// Inserts a new row at `row` (-1 or past the end: at the end): named suggestedName(), sparse
  /// f32 like the last sparse row's dtype, channels unknown, stride 1. Returns its row.
  int addInput(int row = -1);
  /// Removes one row; false when there is none at `row`.
  bool removeInput(int row);
  /// Moves a row up (delta -1) or down (+1); false at the edges.
  bool moveInput(int row, int delta);

  /// Values an editor may offer for a column ("sparse"/"dense", "f32"/"f16"); empty for free text.
  static QStringList choices(int column);
  /// The spec as `lattice-cli lower --input` takes it: `x:sparse:f32:16`, `x:sparse:f16:?:2,2,2`,
  /// `points:dense:tensor<?x3xf32>`.
  static QString cliText(const InputSpec& spec);
  /// The whole list as lattice-cli arguments (`--input A --input 'B'`, quoted for a shell when
  /// needed); empty for no rows.
  QString cliArguments() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  /// New rows as addInput makes them.
  bool insertRows(int row, int count, const QModelIndex& parent = {}) override;
  bool removeRows(int row, int count, const QModelIndex& parent = {}) override;
  bool moveRows(const QModelIndex& sourceParent, int sourceRow, int count,
                const QModelIndex& destinationParent, int destinationChild) override;

private:
  /// The list after an edit of this table (between its begin/end signals): kept, and given to
  /// the session when bound.
  void commit(std::vector<InputSpec> next, const QString& description);
  /// The session's list changed (not by this table): take it over.
  void followSession();
  QStringList fixedNames() const;
  QString suggestedNameAmong(const std::vector<InputSpec>& specs) const;

  QPointer<StudioSession> m_session;
  /// channelNeed's cache: the key it was computed for, and the needs.
  mutable QString m_needsKey;
  mutable std::vector<InputChannelNeed> m_needs;
  std::vector<InputSpec> m_specs;
  QStringList m_fixedNames; ///< unbound: the names setSpecs gave
  bool m_committing = false;
};

/// "1, 1, 1" for a stride.
QString strideText(const std::array<int64_t, 3>& stride);
/// Parses "2" (all axes) or "1, 2, 1" (commas and/or spaces); false when invalid (not positive).
bool parseStride(const QString& text, std::array<int64_t, 3>& out);

} // namespace lattice::studio
