#pragma once
/// \file Node roles and their look (issue #4 item 2): what a node of the traced graph is for the
/// lowering, the colours the graph view, its legend and the panels use for it, and the two
/// label lines items paint.

#include <QColor>
#include <QString>
#include <QVector>

namespace lattice {
class Model;
namespace fx {
class Node;
}
} // namespace lattice

namespace lattice::studio {

/// What a node is for the lowering. Order is legend order.
enum class NodeRole : unsigned char {
  LatticeModule,   ///< call_module whose type (or a base) has a lattice lowering: the highlighted leaves
  OtherModule,     ///< call_module without a lowering (a leaf the user forced, a torch module)
  LoweredFunction, ///< call_function with a function lowering, or structural `operator.getitem`
  Unsupported,     ///< call_function / call_method without a lowering: an export blocker
  Placeholder,     ///< a graph input
  GetAttr,         ///< a parameter, buffer or attribute read
  Output,          ///< the graph's return
  Group,           ///< a collapsed module group standing for many nodes
};

/// Colours of one role.
struct NodeRoleStyle {
  QColor fill;
  QColor border;
  QColor text;
  QString label;        ///< legend text
  bool blocker = false; ///< marked as an export blocker
};

/// The role of `node` in the graph traced from `model` (`model` may be null: modules are then
/// OtherModule).
NodeRole classifyNode(const fx::Node& node, const Model* model);
/// The style of a role.
const NodeRoleStyle& roleStyle(NodeRole role);
/// Every role shown in the legend, in order (Group last).
QVector<NodeRole> legendRoles();

/// The two label lines of a node: its name, and what it calls ("SubmConv3d", "operator.add",
/// "input", "return").
struct NodeLabel {
  QString title;
  QString subtitle;
};
NodeLabel nodeLabel(const fx::Node& node, const Model* model);

/// The qualified module type a call_module node calls; empty for other nodes or unknown modules.
QString moduleTypeOf(const fx::Node& node, const Model* model);

/// The colour of a role-independent state.
namespace palette {
QColor current();    ///< the interpreter's next node
QColor breakpoint(); ///< breakpoint marker
QColor failed();     ///< the node an error stopped at
QColor selection();  ///< selected outline
QColor searchHit();  ///< search match halo
QColor edge();       ///< edge stroke
QColor background(); ///< scene background
} // namespace palette

} // namespace lattice::studio
