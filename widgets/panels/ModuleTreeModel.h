#pragma once
/// \file ModuleTreeModel: the session's module tree as a Qt tree model. One row
/// per ModuleInfo, children in registration order. Columns: the local name, the class name, the
/// leaf decision (checkable: checked keeps the module as one call_module node, unchecked inlines
/// its graph) and whether the type has a lattice lowering. Checking a box calls
/// StudioSession::setLeafOverride (as an undoable LeafEdits command), which re-traces; the model
/// follows the session's signals. Containers (ModuleList, ModuleDict, ParameterList,
/// ParameterDict) are never called, so they have no leaf decision: their Leaf cell says
/// "container" and offers no checkbox.

#include <QAbstractItemModel>
#include <QString>

#include <vector>

namespace lattice {
struct ModuleInfo;
}

namespace lattice::studio {

class StudioSession;

/// True for a module that only holds others and has no forward of its own (torch.nn's
/// ModuleList, ModuleDict, ParameterList, ParameterDict, or a subclass without a recorded
/// graph): a graph calls its children (`blocks.0`), never the container, so keeping it as a
/// leaf or inlining it changes nothing. Sequential is not one: it has a forward and can be a leaf.
bool isModuleContainer(const ModuleInfo& module);

class ModuleTreeModel : public QAbstractItemModel {
  Q_OBJECT

public:
  enum Column { NameColumn, TypeColumn, LeafColumn, LoweringColumn, ColumnCount };
  enum Role {
    PathRole = Qt::UserRole + 1, ///< the module's qualified path ("" for the root)
    IsLeafRole,                  ///< bool: the effective leaf decision
    OverriddenRole,              ///< bool: the user overrode the tracer's policy
    HasLoweringRole,             ///< bool: the type or a base has a lattice lowering
    InsideLeafRole,              ///< bool: an ancestor is a leaf (the module is not traced into)
    IsContainerRole,             ///< bool: a container (isModuleContainer): no leaf decision
  };

  explicit ModuleTreeModel(StudioSession* session, QObject* parent = nullptr);

  /// The index of the module at `path` (column 0); invalid when there is none.
  QModelIndex indexOfPath(const QString& path) const;
  /// The module of a row; nullptr for an invalid index.
  const ModuleInfo* moduleAt(const QModelIndex& index) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  /// One tree row. `module` indexes Model::modules(); the root row has parent -1.
  struct Row {
    std::size_t module = 0;
    int parent = -1;
    int row = 0; ///< position among its siblings
    std::vector<int> children;
  };

  void rebuild();
  /// Emits dataChanged for the decision columns of every row (after a re-trace).
  void refreshDecisions();
  const Row* rowOf(const QModelIndex& index) const;
  bool insideLeaf(const Row& row) const;

  StudioSession* m_session;
  std::vector<Row> m_rows; ///< m_rows[0] is the root when a model is loaded
};

} // namespace lattice::studio
