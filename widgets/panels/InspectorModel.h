#pragma once
/// \file InspectorModel: what the inspector shows as a property tree. Pure
/// functions describe an FX node (op, target, args, kwargs, users, its interpreter value and what
/// it emitted) and a module (type, bases, attributes, parameters and buffers with dtype, shape
/// and bytes); InspectorModel adapts the session's current selection to a Qt tree model.

#include <QAbstractItemModel>
#include <QString>

#include <memory>
#include <vector>

namespace lattice {
class Model;
class TorchLatticeArtifactBuilder;
struct ModuleInfo;
namespace fx {
class Node;
class Value;
} // namespace fx
} // namespace lattice

namespace lattice::studio {

class StudioSession;

/// One row of the inspector: a name, a value and, for tensors, shape and byte size.
struct Property {
  QString name;
  QString value;
  QString shape; ///< tensors: "[1, 3, 4]"
  QString bytes; ///< tensors: "48"
  QString tooltip;
  QString nodeRef; ///< the FX node this row refers to (double-click selects it), if any
  std::vector<Property> children;

  Property() = default;
  Property(QString n, QString v) : name(std::move(n)), value(std::move(v)) {}
  /// The first child called `childName`; nullptr when none.
  const Property* child(const QString& childName) const;
};

/// Rows describing `node`: Name, Op, Target, Args, Kwargs, Users and, when given, the value the
/// interpreter computed for it and what the builder emitted for it (ops with their results,
/// weight keys).
Property describeNode(const fx::Node& node, const fx::Value* value,
                      const TorchLatticeArtifactBuilder* builder);
/// Rows describing `module`: Path, Type, Bases, Training, Leaf (`leafText`), Lowering,
/// Attributes, Parameters, Buffers (dtype, shape, bytes), Children.
Property describeModule(const ModuleInfo& module, const QString& leafText);
/// The whole model's totals, for the root module: "Model" with the module count and every
/// parameter and buffer of the tree (tensor count and bytes).
Property describeModelTotals(const Model& model);

class InspectorModel : public QAbstractItemModel {
  Q_OBJECT

public:
  enum Column { NameColumn, ValueColumn, ShapeColumn, BytesColumn, ColumnCount };
  enum Role { NodeRefRole = Qt::UserRole + 1 };

  explicit InspectorModel(StudioSession* session, QObject* parent = nullptr);

  /// The node section ("Node 'name'") or nullptr; for tests and the panel.
  const Property* nodeSection() const;
  /// The module section ("Module 'path'") or nullptr.
  const Property* moduleSection() const;
  /// The module path shown (a selected module, or the target of a selected call_module node);
  /// "" for the root or none (see showsModule).
  QString shownModule() const { return m_modulePath; }
  /// True when a module section is shown (possibly the root's).
  bool showsModule() const { return moduleSection() != nullptr; }

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  /// A row of m_sections with its parent link, as the tree model needs it.
  struct Item {
    const Property* property = nullptr; ///< nullptr for the invisible root
    Item* parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<Item>> children;
  };
  static std::unique_ptr<Item> makeItem(const Property& property, Item* parent, int row);
  Item* itemOf(const QModelIndex& index) const;

  void onNodeSelected(const QString& node);
  void onModuleSelected(const QString& path);
  void onStepped();
  void rebuild();

  StudioSession* m_session;
  QString m_modulePath; ///< "" is the root (when m_showModule)
  bool m_showModule = false;
  bool m_showNode = false;
  int m_executedSeen = 0;           ///< executedNodes() looked at by the last rebuild / step
  std::vector<Property> m_sections; ///< the node and/or module section shown
  std::unique_ptr<Item> m_root;
};

} // namespace lattice::studio
