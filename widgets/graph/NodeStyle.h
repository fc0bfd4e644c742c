#pragma once
/// \file Node roles and their look: what a node of the traced graph is for the
/// lowering, the colours the graph view, its legend and the panels use for it, and the two
/// label lines items paint.

#include <QColor>
#include <QPalette>
#include <QString>
#include <QVector>

namespace lattice {
class LoweringVerdicts;
class Model;
namespace fx {
class Node;
}
} // namespace lattice

namespace lattice::studio {

/// What a node is for the lowering, by the lowering's own verdict on it (checkLowering, a dry
/// run of the lowering on the graph). Order is legend order.
enum class NodeRole : unsigned char {
  LatticeModule,   ///< call_module the lowering lowers: the highlighted leaves
  OtherModule,     ///< call_module the lowering refuses (no lowering for its type, wrong inputs, ...)
  LoweredFunction, ///< call_function the lowering lowers (`operator.getitem` included)
  Unsupported,     ///< call_function / call_method the lowering refuses: an export blocker
  Placeholder,     ///< a graph input
  GetAttr,         ///< a parameter, buffer or attribute read
  Output,          ///< the graph's return
  Group,           ///< a collapsed module group standing for many nodes
  Unchecked,       ///< a call the lowering did not reach (after a refused node, or no dry run)
};

/// Colours of one role.
struct NodeRoleStyle {
  QColor fill;
  QColor border;
  QColor text;
  QString label;        ///< legend text
  bool blocker = false; ///< marked as an export blocker
};

/// The role of `node` by the lowering's verdict on it (`verdicts` from checkLowering; null when
/// no dry run was possible: every call is then Unchecked).
NodeRole classifyNode(const fx::Node& node, const LoweringVerdicts* verdicts);
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

/// The colour of a role-independent state. The canvas colours (background, edges, selection)
/// follow the application palette: dark when its base colour is dark.
namespace palette {
bool dark();         ///< the application palette is a dark one
QColor current();    ///< the interpreter's next node
QColor breakpoint(); ///< breakpoint marker
QColor failed();     ///< the node an error stopped at
QColor selection();  ///< selected outline
QColor searchHit();  ///< search match halo
QColor edge();       ///< edge stroke
QColor background(); ///< scene background
/// The translucent card under the legend and the minimap, its border and its text, from the
/// widget palette `p`.
QColor cardFill(const QPalette& p);
QColor cardBorder(const QPalette& p);
QColor cardText(const QPalette& p);
} // namespace palette

} // namespace lattice::studio
